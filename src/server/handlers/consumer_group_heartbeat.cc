#include "server/handlers/consumer_group_heartbeat.h"

#include "server/handlers/group_handler_support.h"

#include "common/error.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::consumer_group_heartbeat_request;
using protocol::consumer_group_heartbeat_response;

consumer_group_heartbeat_response failed(error_code ec) {
    consumer_group_heartbeat_response resp;
    resp.error_code = to_wire(ec);
    return resp;
}

asio::awaitable<consumer_group_heartbeat_response> handle(request_context& ctx,
                                                          consumer_group_heartbeat_request& req) {
    if (!ctx.broker->groups) {
        co_return failed(error_code::coordinator_not_available);
    }
    if (!ctx.broker->groups->config().consumer_protocol) {
        // group.coordinator.rebalance.protocols without "consumer".
        co_return failed(error_code::unsupported_version);
    }
    if (!may_use_group(ctx, req.group_id)) {
        co_return failed(error_code::group_authorization_failed);
    }
    if (ctx.header.api_version >= 1 && req.member_id.empty()) {
        // From v1 the member generates its id, joining too (KIP-1082).
        auto resp = failed(error_code::invalid_request);
        resp.error_message = "MemberId can't be empty.";
        co_return resp;
    }
    coordinator::consumer_group_heartbeat_params params;
    params.group_id = req.group_id;
    params.member_id = req.member_id;
    params.member_epoch = req.member_epoch;
    params.instance_id = req.instance_id;
    params.rack_id = req.rack_id;
    params.rebalance_timeout_ms = req.rebalance_timeout_ms;
    params.subscribed_topic_names = req.subscribed_topic_names;
    if (ctx.header.api_version >= 1) {
        params.subscribed_topic_regex = req.subscribed_topic_regex;
    }
    params.server_assignor = req.server_assignor;
    if (req.topic_partitions) {
        coordinator::topic_assignment owned;
        for (const auto& t : *req.topic_partitions) {
            owned[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
        }
        params.owned = std::move(owned);
    }
    auto r = co_await ctx.broker->groups->consumer_group_heartbeat(params, origin_of(ctx));
    consumer_group_heartbeat_response resp;
    resp.error_code = to_wire(r.error);
    resp.error_message = std::move(r.error_message);
    if (r.error != error_code::none) {
        co_return resp;
    }
    resp.member_id = std::move(r.member_id);
    resp.member_epoch = r.member_epoch;
    resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
    if (r.assignment) {
        auto& a = resp.assignment.emplace();
        for (const auto& [topic, parts] : *r.assignment) {
            if (parts.empty()) {
                continue;
            }
            auto& t = a.topic_partitions.emplace_back();
            t.topic_id = topic;
            t.partitions.assign(parts.begin(), parts.end());
        }
    }
    co_return resp;
}

}  // namespace

api_handler consumer_group_heartbeat_handler() {
    return {consumer_group_heartbeat_request::api_key, 0,
            consumer_group_heartbeat_request::max_version,
            &typed_handler<consumer_group_heartbeat_request, consumer_group_heartbeat_response,
                           &handle>};
}

}  // namespace samsa::server::handlers
