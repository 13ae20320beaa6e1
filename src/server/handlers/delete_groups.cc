#include "server/handlers/delete_groups.h"

#include "server/handlers/group_handler_support.h"

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::delete_groups_request;
using protocol::delete_groups_response;

asio::awaitable<delete_groups_response> handle(request_context& ctx, delete_groups_request& req) {
    delete_groups_response resp;
    if (ctx.broker->groups) {
        ctx.broker->groups->count(coordinator::group_api::delete_groups);
    }
    for (const auto& id : req.groups_names) {
        error_code ec = may_use_group(ctx, id, acl::operation::delete_)
                            ? error_code::coordinator_not_available
                            : error_code::group_authorization_failed;
        if (ctx.broker->groups && ec == error_code::coordinator_not_available) {
            ec = co_await ctx.broker->groups->delete_group(id);
        }
        auto& r = resp.results.emplace_back();
        r.group_id = id;
        r.error_code = to_wire(ec);
    }
    co_return resp;
}

}  // namespace

api_handler delete_groups_handler() {
    return {delete_groups_request::api_key, 0, delete_groups_request::max_version,
            &typed_handler<delete_groups_request, delete_groups_response, &handle>};
}

}  // namespace samsa::server::handlers
