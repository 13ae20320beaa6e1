#include "server/handlers/create_partitions.h"

#include "common/error.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::create_partitions_request;
using protocol::create_partitions_response;

asio::awaitable<create_partitions_response> handle(request_context& ctx,
                                                   create_partitions_request& req) {
    auto refusal = [&](const create_partitions_request::create_partitions_topic& t) {
        return authorized(ctx, acl::operation::alter, acl::resource_type::topic, t.name)
                   ? error_code::none
                   : error_code::topic_authorization_failed;
    };
    co_return co_await forward_authorized(ctx, req, &create_partitions_request::topics, refusal);
}

}  // namespace

api_handler create_partitions_handler() {
    return {create_partitions_request::api_key, 0, create_partitions_request::max_version,
            &typed_handler<create_partitions_request, create_partitions_response, &handle>};
}

}  // namespace samsa::server::handlers
