#include "server/handlers/create_partitions.h"

#include <algorithm>

#include "common/error.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"
#include "server/quota/controller_mutation_quota.h"

namespace samsa::server::handlers {

namespace {

using protocol::create_partitions_request;
using protocol::create_partitions_response;

asio::awaitable<create_partitions_response> handle(request_context& ctx,
                                                   create_partitions_request& req) {
    // Then the controller mutation quota (KIP-599), strict from v3: each
    // topic takes the partitions it adds.
    quota::controller_mutation_quota mutations(ctx, 3);
    const auto image = ctx.broker->metadata.read();
    auto refusal = [&](const create_partitions_request::create_partitions_topic& t) {
        if (!authorized(ctx, acl::operation::alter, acl::resource_type::topic, t.name)) {
            return error_code::topic_authorization_failed;
        }
        const auto* known = image->topic(t.name);
        const int32_t adding = known ? t.count - int32_t(known->partitions.size()) : 0;
        return mutations.charge(t.name, std::max(0, adding));
    };
    auto resp = co_await forward_authorized(ctx, req, &create_partitions_request::topics, refusal);
    mutations.settle(resp, resp.results,
                     [](const auto& r) { return std::optional<std::string>(r.name); });
    co_return resp;
}

}  // namespace

api_handler create_partitions_handler() {
    return {create_partitions_request::api_key, 0, create_partitions_request::max_version,
            &typed_handler<create_partitions_request, create_partitions_response, &handle>};
}

}  // namespace samsa::server::handlers
