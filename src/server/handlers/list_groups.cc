#include "server/handlers/list_groups.h"

#include "server/handlers/group_handler_support.h"

#include "common/ascii.h"
#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::list_groups_request;
using protocol::list_groups_response;

asio::awaitable<list_groups_response> handle(request_context& ctx, list_groups_request& req) {
    const int16_t version = ctx.header.api_version;
    list_groups_response resp;
    if (!ctx.broker->groups) {
        resp.error_code = to_wire(error_code::coordinator_not_available);
        co_return resp;
    }
    coordinator::list_groups_filter filter;
    if (version >= 4) {
        for (const auto& name : req.states_filter) {
            filter.states.insert(ascii_lower(name));
        }
    }
    if (version >= 5 && !req.types_filter.empty()) {
        for (const auto& t : req.types_filter) {
            for (auto type :
                 {coordinator::group_type::classic, coordinator::group_type::consumer}) {
                if (ascii_lower(t) == coordinator::group_type_name(type)) {
                    filter.types.insert(type);
                }
            }
        }
        if (filter.types.empty()) {
            co_return resp;  // only types no group here has (share groups)
        }
    }
    bool loading = false;
    for (auto& g : co_await ctx.broker->groups->list_groups(filter, loading)) {
        auto& out = resp.groups.emplace_back();
        out.group_id = std::move(g.group_id);
        out.protocol_type = std::move(g.protocol_type);
        out.group_state = std::move(g.group_state);
        out.group_type = std::move(g.group_type);
    }
    if (loading) {
        resp.error_code = to_wire(error_code::coordinator_load_in_progress);
    }
    // DESCRIBE on the cluster lists every group; else those the principal may
    // DESCRIBE (KIP-11).
    if (authorizer_enabled(ctx) &&
        !authorized(ctx, acl::operation::describe, acl::resource_type::cluster, acl::cluster_name,
                    on_denial::quiet)) {
        std::erase_if(resp.groups, [&](const auto& g) {
            return !authorized(ctx, acl::operation::describe, acl::resource_type::group, g.group_id,
                               on_denial::quiet);
        });
    }
    co_return resp;
}

}  // namespace

api_handler list_groups_handler() {
    return {list_groups_request::api_key, 0, list_groups_request::max_version,
            &typed_handler<list_groups_request, list_groups_response, &handle>};
}

}  // namespace samsa::server::handlers
