#include "server/handlers/heartbeat.h"

#include "server/handlers/group_handler_support.h"

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/heartbeat_request.h"
#include "protocol/generated/heartbeat_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::heartbeat_request;
using protocol::heartbeat_response;

asio::awaitable<heartbeat_response> handle(request_context& ctx, heartbeat_request& req) {
    heartbeat_response resp;
    if (!may_use_group(ctx, req.group_id)) {
        resp.error_code = to_wire(error_code::group_authorization_failed);
        co_return resp;
    }
    if (!ctx.broker->groups) {
        resp.error_code = to_wire(error_code::coordinator_not_available);
        co_return resp;
    }
    coordinator::heartbeat_params params;
    params.group_id = req.group_id;
    params.generation_id = req.generation_id;
    params.member_id = req.member_id;
    params.group_instance_id = req.group_instance_id;
    const error_code ec = co_await ctx.broker->groups->heartbeat(params);
    resp.error_code = to_wire(ec);
    co_return resp;
}

}  // namespace

api_handler heartbeat_handler() {
    return {heartbeat_request::api_key, 0, heartbeat_request::max_version,
            &typed_handler<heartbeat_request, heartbeat_response, &handle>};
}

}  // namespace samsa::server::handlers
