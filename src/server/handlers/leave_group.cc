#include "server/handlers/leave_group.h"

#include "server/handlers/group_handler_support.h"

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::leave_group_request;
using protocol::leave_group_response;

asio::awaitable<leave_group_response> handle(request_context& ctx, leave_group_request& req) {
    const int16_t version = ctx.header.api_version;
    if (version < 3) {
        // One member, named by its id.
        leave_group_request::member_identity m;
        m.member_id = req.member_id;
        req.members.assign(1, m);
    }
    leave_group_response resp;
    if (!may_use_group(ctx, req.group_id)) {
        resp.error_code = to_wire(error_code::group_authorization_failed);
    } else if (!ctx.broker->groups) {
        resp.error_code = to_wire(error_code::coordinator_not_available);
    } else {
        std::vector<coordinator::leaving_member> members;
        members.reserve(req.members.size());
        for (const auto& m : req.members) {
            members.push_back({m.member_id, m.group_instance_id, m.reason});
        }
        auto result = co_await ctx.broker->groups->leave_group(req.group_id, members);
        resp.error_code = to_wire(result.error);
        for (auto& m : result.members) {
            auto& out = resp.members.emplace_back();
            out.member_id = std::move(m.member_id);
            out.group_instance_id = std::move(m.group_instance_id);
            out.error_code = to_wire(m.error);
        }
    }
    if (version < 3 && resp.error_code == 0) {
        // Before v3 the member's error is the response's.
        for (const auto& m : resp.members) {
            if (m.error_code != 0) {
                resp.error_code = m.error_code;
                break;
            }
        }
    }
    co_return resp;
}

}  // namespace

api_handler leave_group_handler() {
    return {leave_group_request::api_key, 0, leave_group_request::max_version,
            &typed_handler<leave_group_request, leave_group_response, &handle>};
}

}  // namespace samsa::server::handlers
