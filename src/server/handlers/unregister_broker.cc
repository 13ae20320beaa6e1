#include "server/handlers/unregister_broker.h"

#include "common/error.h"
#include "protocol/generated/unregister_broker_request.h"
#include "protocol/generated/unregister_broker_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::unregister_broker_request;
using protocol::unregister_broker_response;

asio::awaitable<unregister_broker_response> handle(request_context& ctx,
                                                   unregister_broker_request& req) {
    const bool allowed = authorized_on_cluster(ctx, acl::operation::alter);
    // One co_await, outside any branch (GCC 12 miscompiles co_await in one).
    auto op = allowed ? forward_to_controller(ctx, req)
                      : ready(metadata::answer_with(req, error_code::cluster_authorization_failed));
    co_return co_await std::move(op);
}

}  // namespace

api_handler unregister_broker_handler() {
    return {unregister_broker_request::api_key, 0, unregister_broker_request::max_version,
            &typed_handler<unregister_broker_request, unregister_broker_response, &handle>};
}

}  // namespace samsa::server::handlers
