#include "server/handlers/describe_groups.h"

#include "server/handlers/group_handler_support.h"

#include <climits>

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_groups_request;
using protocol::describe_groups_response;

describe_groups_response::described_group wire_of(coordinator::described_group g) {
    describe_groups_response::described_group out;
    out.error_code = to_wire(g.error);
    out.group_id = std::move(g.group_id);
    out.group_state = std::move(g.group_state);
    out.protocol_type = std::move(g.protocol_type);
    out.protocol_data = std::move(g.protocol_data);
    out.members.reserve(g.members.size());
    for (auto& m : g.members) {
        auto& om = out.members.emplace_back();
        om.member_id = std::move(m.member_id);
        om.group_instance_id = std::move(m.group_instance_id);
        om.client_id = std::move(m.client_id);
        om.client_host = std::move(m.client_host);
        om.member_metadata = std::move(m.member_metadata);
        om.member_assignment = std::move(m.member_assignment);
    }
    return out;
}

asio::awaitable<describe_groups_response> handle(request_context& ctx,
                                                 describe_groups_request& req) {
    const int16_t version = ctx.header.api_version;
    describe_groups_response resp;
    if (ctx.broker->groups) {
        ctx.broker->groups->count(coordinator::group_api::describe_groups);
    }
    for (const auto& id : req.groups) {
        describe_groups_response::described_group g;
        if (!may_use_group(ctx, id, acl::operation::describe)) {
            g.group_id = id;
            g.error_code = to_wire(error_code::group_authorization_failed);
        } else if (!ctx.broker->groups) {
            g.group_id = id;
            g.error_code = to_wire(error_code::coordinator_not_available);
        } else {
            g = wire_of(co_await ctx.broker->groups->describe_group(id));
        }
        // Without the request's ask (v3+), Kafka leaves it unset (KIP-430).
        g.authorized_operations =
            version >= 3 && req.include_authorized_operations && g.error_code == 0
                ? authorized_operations(ctx, acl::resource_type::group, id)
                : INT32_MIN;
        resp.groups.push_back(std::move(g));
    }
    co_return resp;
}

}  // namespace

api_handler describe_groups_handler() {
    return {describe_groups_request::api_key, 0, describe_groups_request::max_version,
            &typed_handler<describe_groups_request, describe_groups_response, &handle>};
}

}  // namespace samsa::server::handlers
