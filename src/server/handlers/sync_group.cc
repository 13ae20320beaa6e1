#include "server/handlers/sync_group.h"

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"
#include "server/handlers/group_handler_support.h"

namespace samsa::server::handlers {

namespace {

using protocol::sync_group_request;
using protocol::sync_group_response;

asio::awaitable<sync_group_response> handle(request_context& ctx, sync_group_request& req) {
    if (!may_use_group(ctx, req.group_id)) {
        co_return coordinator::sync_error(error_code::group_authorization_failed);
    }
    if (!ctx.broker->groups) {
        co_return coordinator::sync_error(error_code::coordinator_not_available);
    }
    const auto origin = origin_of(ctx);
    co_return co_await ctx.broker->groups->sync_group(req, origin);
}

}  // namespace

api_handler sync_group_handler() {
    return {sync_group_request::api_key, 0, sync_group_request::max_version,
            &typed_handler<sync_group_request, sync_group_response, &handle>};
}

}  // namespace samsa::server::handlers
