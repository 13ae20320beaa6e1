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

coordinator::sync_group_params params_of(const sync_group_request& req) {
    coordinator::sync_group_params p;
    p.group_id = req.group_id;
    p.generation_id = req.generation_id;
    p.member_id = req.member_id;
    p.group_instance_id = req.group_instance_id;
    p.protocol_type = req.protocol_type;
    p.protocol_name = req.protocol_name;
    p.assignments.reserve(req.assignments.size());
    for (const auto& a : req.assignments) {
        p.assignments.emplace_back(a.member_id, a.assignment);
    }
    return p;
}

sync_group_response response_of(coordinator::sync_group_result r) {
    sync_group_response resp;
    resp.error_code = to_wire(r.error);
    resp.protocol_type = std::move(r.protocol_type);
    resp.protocol_name = std::move(r.protocol_name);
    resp.assignment = std::move(r.assignment);
    return resp;
}

asio::awaitable<sync_group_response> handle(request_context& ctx, sync_group_request& req) {
    if (!may_use_group(ctx, req.group_id)) {
        co_return response_of(coordinator::sync_error(error_code::group_authorization_failed));
    }
    if (!ctx.broker->groups) {
        co_return response_of(coordinator::sync_error(error_code::coordinator_not_available));
    }
    const auto origin = origin_of(ctx);
    co_return response_of(co_await ctx.broker->groups->sync_group(params_of(req), origin));
}

}  // namespace

api_handler sync_group_handler() {
    return {sync_group_request::api_key, 0, sync_group_request::max_version,
            &typed_handler<sync_group_request, sync_group_response, &handle>};
}

}  // namespace samsa::server::handlers
