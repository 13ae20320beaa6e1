#include "server/handlers/join_group.h"

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "server/handlers/group_handler_support.h"

namespace samsa::server::handlers {

namespace {

using protocol::join_group_request;
using protocol::join_group_response;

// Kafka's JoinGroupRequest.validateGroupInstanceId: a topic-name-like id.
bool valid_group_instance_id(const std::string& id) {
    if (id.empty() || id.size() > 249 || id == "." || id == "..") {
        return false;
    }
    for (char c : id) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

coordinator::join_group_params params_of(const join_group_request& req) {
    coordinator::join_group_params p;
    p.group_id = req.group_id;
    p.session_timeout_ms = req.session_timeout_ms;
    p.rebalance_timeout_ms = req.rebalance_timeout_ms;
    p.member_id = req.member_id;
    p.group_instance_id = req.group_instance_id;
    p.protocol_type = req.protocol_type;
    p.protocols.reserve(req.protocols.size());
    for (const auto& proto : req.protocols) {
        p.protocols.push_back({proto.name, proto.metadata});
    }
    p.reason = req.reason;
    return p;
}

join_group_response response_of(coordinator::join_group_result r) {
    join_group_response resp;
    resp.error_code = to_wire(r.error);
    resp.generation_id = r.generation_id;
    resp.protocol_type = std::move(r.protocol_type);
    resp.protocol_name = std::move(r.protocol_name);
    resp.leader = std::move(r.leader);
    resp.skip_assignment = r.skip_assignment;
    resp.member_id = std::move(r.member_id);
    resp.members.reserve(r.members.size());
    for (auto& m : r.members) {
        auto& out = resp.members.emplace_back();
        out.member_id = std::move(m.member_id);
        out.group_instance_id = std::move(m.group_instance_id);
        out.metadata = std::move(m.metadata);
    }
    return resp;
}

asio::awaitable<join_group_response> handle(request_context& ctx, join_group_request& req) {
    const int16_t version = ctx.header.api_version;
    join_group_response resp;
    if (version == 0) {
        // v0 has no rebalance timeout: the session timeout serves as one.
        req.rebalance_timeout_ms = req.session_timeout_ms;
    }
    if (!may_use_group(ctx, req.group_id)) {
        resp = response_of(
            coordinator::join_error(req.member_id, error_code::group_authorization_failed));
    } else if (!ctx.broker->groups) {
        resp = response_of(
            coordinator::join_error(req.member_id, error_code::coordinator_not_available));
    } else if (req.group_instance_id && !valid_group_instance_id(*req.group_instance_id)) {
        resp = response_of(coordinator::join_error(req.member_id, error_code::invalid_group_id));
    } else {
        const auto origin = origin_of(ctx);
        resp = response_of(co_await ctx.broker->groups->join_group(params_of(req), origin));
    }
    if (version < 7) {
        // Not nullable before v7 (an error answer has no protocol).
        resp.protocol_name = resp.protocol_name.value_or("");
    }
    co_return resp;
}

}  // namespace

api_handler join_group_handler() {
    return {join_group_request::api_key, 0, join_group_request::max_version,
            &typed_handler<join_group_request, join_group_response, &handle>};
}

}  // namespace samsa::server::handlers
