#include "server/handlers/describe_quorum.h"

#include "server/authorization.h"

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>

#include "net/await_callback.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"
#include "raft/raft_wire.h"
#include "server/quorum/controller_frontend.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_quorum_request;
using protocol::describe_quorum_response;

asio::awaitable<raft::quorum_description> describe(quorum::metadata_quorum& q) {
    auto start = [&q](std::function<void(raft::quorum_description)> done) {
        q.describe_async(std::move(done));
    };
    co_return co_await net::await_callback<raft::quorum_description>(start);
}

void fill(describe_quorum_response::topic_data::partition_data& p,
          const raft::quorum_description& d) {
    p.error_code = to_wire(d.error);
    p.error_message = std::nullopt;
    p.leader_id = d.leader.leader;
    p.leader_epoch = d.leader.epoch.value();
    p.high_watermark = d.high_watermark;
    auto add = [](auto& list, const raft::replica_description& r) {
        auto& s = list.emplace_back();
        s.replica_id = r.id;
        s.log_end_offset = r.log_end_offset;
        s.last_fetch_timestamp = r.last_fetch_ms;
        s.last_caught_up_timestamp = r.last_caught_up_ms;
    };
    for (const auto& v : d.voters) {
        add(p.current_voters, v);
    }
    for (const auto& o : d.observers) {
        add(p.observers, o);
    }
}

asio::awaitable<handler_result> handle(request_context& ctx) {
    const int16_t version = ctx.header.api_version;
    describe_quorum_request req;
    protocol::reader r(ctx.body);
    req.decode(r, version);
    if (!r.ok()) {
        co_return handler_result::close("request body failed to decode");
    }
    handler_result out;
    // DESCRIBE on the cluster, as Kafka's ControllerApis ask.
    if (!authorized_on_cluster(ctx, acl::operation::describe)) {
        describe_quorum_response refused;
        refused.error_code = to_wire(error_code::cluster_authorization_failed);
        refused.error_message = std::nullopt;
        count_response_errors(refused, version);
        refused.encode(out.body, version);
        co_return out;
    }
    auto* q = ctx.broker->quorum;
    if (q && !q->is_local_leader() && ctx.broker->controller) {
        bytes body(ctx.body.begin(), ctx.body.end());
        auto forwarded = co_await ctx.broker->controller->forward(describe_quorum_request::api_key,
                                                                  version, body);
        if (forwarded) {
            out.body.buffer() = std::move(*forwarded);
            co_return out;
        }
    }
    describe_quorum_response resp;
    raft::quorum_description d;
    if (q) {
        d = co_await describe(*q);
    } else {
        d.error = error_code::not_leader_or_follower;
    }
    for (const auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.topic_name = t.topic_name;
        for (const auto& p : t.partitions) {
            auto& rp = rt.partitions.emplace_back();
            rp.partition_index = p.partition_index;
            if (t.topic_name != raft::metadata_topic_name || p.partition_index != 0) {
                rp.error_code = to_wire(error_code::unknown_topic_or_partition);
                rp.error_message = std::nullopt;
                continue;
            }
            fill(rp, d);
        }
    }
    // v2 (KIP-853): the voters' endpoints, from the static voter set on the
    // controller listener they are reached by.
    if (version >= 2 && ctx.broker->config &&
        !ctx.broker->config->controller_listener_names.empty()) {
        const auto& cfg = *ctx.broker->config;
        for (const auto& v : cfg.controller_quorum_voters) {
            auto& n = resp.nodes.emplace_back();
            n.node_id = node_id{v.id};
            auto& l = n.listeners.emplace_back();
            l.name = cfg.controller_listener_names.front();
            l.host = v.host;
            l.port = v.port;
        }
    }
    resp.error_message = std::nullopt;
    count_response_errors(resp, version);
    resp.encode(out.body, version);
    co_return out;
}

}  // namespace

api_handler describe_quorum_handler() {
    return {describe_quorum_request::api_key, 0, describe_quorum_request::max_version, &handle};
}

}  // namespace samsa::server::handlers
