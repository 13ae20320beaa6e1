#include "server/handlers/create_topics.h"

#include <algorithm>

#include "common/error.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"
#include "server/quota/controller_mutation_quota.h"

namespace samsa::server::handlers {

namespace {

using protocol::create_topics_request;
using protocol::create_topics_response;

asio::awaitable<create_topics_response> handle(request_context& ctx, create_topics_request& req) {
    // CREATE on the cluster covers every topic; else CREATE on each (KIP-11).
    const bool on_cluster = authorized(ctx, acl::operation::create, acl::resource_type::cluster,
                                       acl::cluster_name, on_denial::quiet);
    // Then the controller mutation quota (KIP-599), strict from v6: each
    // topic takes its partitions.
    quota::controller_mutation_quota mutations(ctx, 6);
    const int32_t default_partitions = ctx.broker->config ? ctx.broker->config->num_partitions : 1;
    auto refusal = [&](const create_topics_request::creatable_topic& t) {
        if (!on_cluster &&
            !authorized(ctx, acl::operation::create, acl::resource_type::topic, t.name)) {
            return error_code::topic_authorization_failed;
        }
        const int32_t partitions = !t.assignments.empty()   ? int32_t(t.assignments.size())
                                   : t.num_partitions == -1 ? default_partitions
                                                            : t.num_partitions;
        return mutations.charge(t.name, std::max(0, partitions));
    };
    auto resp = co_await forward_authorized(ctx, req, &create_topics_request::topics, refusal);
    mutations.settle(resp, resp.topics,
                     [](const auto& t) { return std::optional<std::string>(t.name); });
    co_return resp;
}

}  // namespace

api_handler create_topics_handler() {
    return {create_topics_request::api_key, 0, create_topics_request::max_version,
            &typed_handler<create_topics_request, create_topics_response, &handle>};
}

}  // namespace samsa::server::handlers
