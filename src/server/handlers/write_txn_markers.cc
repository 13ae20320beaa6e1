#include "server/handlers/write_txn_markers.h"

#include "server/authorization.h"

#include <asio/this_coro.hpp>

#include "cluster/fetch_waiters.h"
#include "common/async_latch.h"
#include "common/clock.h"
#include "common/config/broker_config.h"
#include "coordinator/group/group_config.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/generated/write_txn_markers_request.h"
#include "protocol/generated/write_txn_markers_response.h"
#include "record/control_record.h"
#include "server/shard_dispatch.h"

namespace samsa::server::handlers {

namespace {

using protocol::write_txn_markers_request;
using protocol::write_txn_markers_response;

struct marker_item {
    size_t shard = 0;
    storage::topic_partition tp;
    const write_txn_markers_request::writable_txn_marker* marker = nullptr;
    error_code error = error_code::none;
    bool waiting = false;  // appended; replication pending
};

asio::awaitable<write_txn_markers_response> handle(request_context& ctx,
                                                   write_txn_markers_request& req) {
    auto image = ctx.broker->metadata.read();
    auto& replicas = *ctx.broker->replicas;
    // Only brokers (transaction coordinators) write markers: CLUSTER_ACTION.
    const bool allowed = authorized_on_cluster(ctx, acl::operation::cluster_action);
    std::vector<marker_item> items;
    for (const auto& m : req.markers) {
        for (const auto& t : m.topics) {
            const auto* topic = image->topic(t.name);
            for (int32_t p : t.partition_indexes) {
                auto& it = items.emplace_back();
                it.tp = {t.name, p};
                it.marker = &m;
                if (!allowed) {
                    it.error = error_code::cluster_authorization_failed;
                    continue;
                }
                if (!topic || p < 0 || size_t(p) >= topic->partitions.size()) {
                    it.error = error_code::unknown_topic_or_partition;
                    continue;
                }
                it.shard = replicas.shard_of(topic->id, p);
            }
        }
    }
    std::vector<marker_item> todo;
    std::vector<size_t> index;
    for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].error == error_code::none) {
            todo.push_back(items[i]);
            index.push_back(i);
        }
    }
    // Appended on each partition's shard; answered once replicated (acks=all).
    auto executor = co_await asio::this_coro::executor;
    auto latch = std::make_shared<async_latch>(executor);
    auto codes = std::make_shared<std::vector<error_code>>(todo.size(), error_code::none);
    auto done = std::make_shared<std::vector<bool>>(todo.size(), false);
    size_t waiting = 0;
    const int64_t now = wall_clock_ms();
    auto* waiters = ctx.broker->fetch_waiters;
    auto append = [now, latch, codes, done, &waiting, &todo, waiters](cluster::partition* p,
                                                                      marker_item& it) {
        if (!p) {
            it.error = error_code::not_leader_or_follower;
            return;
        }
        const auto& m = *it.marker;
        auto batch = record::build_end_txn_marker_batch(
            m.producer_id.value(), m.producer_epoch,
            record::end_txn_marker{m.transaction_result, m.coordinator_epoch}, now);
        auto out = p->append_internal(batch, now);
        if (out.error.code != error_code::none) {
            it.error = out.error.code;
            return;
        }
        if (waiters) {
            waiters->notify(it.tp);  // followers copy the marker at once
        }
        it.waiting = true;
        ++waiting;
        const size_t i = size_t(&it - todo.data());
        p->when_replicated(kafka_offset{out.last_offset + 1},
                           [latch, codes, done, i](error_code ec) {
                               asio::post(latch->executor(), [codes, done, i, ec] {
                                   (*codes)[i] = ec;
                                   (*done)[i] = true;
                               });
                               latch->count_down();
                           });
    };
    co_await dispatch_to_shards(replicas, todo, append);
    if (waiting > 0) {
        latch->add(waiting);
        const int32_t timeout_ms =
            ctx.broker->config ? ctx.broker->config->request_timeout_ms : 30000;
        co_await latch->wait_for(std::chrono::milliseconds(std::max(1, timeout_ms)));
    }
    for (size_t k = 0; k < todo.size(); ++k) {
        auto& it = todo[k];
        if (it.waiting) {
            it.error = !(*done)[k] ? error_code::request_timed_out : (*codes)[k];
        }
        if (it.error == error_code::none && it.tp.topic == coordinator::offsets_topic &&
            ctx.broker->groups) {
            co_await ctx.broker->groups->complete_txn(
                it.tp.partition, it.marker->producer_id.value(), it.marker->transaction_result);
        }
        items[index[k]].error = it.error;
    }
    write_txn_markers_response resp;
    size_t i = 0;
    for (const auto& m : req.markers) {
        auto& mr = resp.markers.emplace_back();
        mr.producer_id = m.producer_id;
        for (const auto& t : m.topics) {
            auto& tr = mr.topics.emplace_back();
            tr.name = t.name;
            for (int32_t p : t.partition_indexes) {
                auto& pr = tr.partitions.emplace_back();
                pr.partition_index = p;
                pr.error_code = to_wire(items[i++].error);
            }
        }
    }
    co_return resp;
}

}  // namespace

api_handler write_txn_markers_handler() {
    return {write_txn_markers_request::api_key, 0, write_txn_markers_request::max_version,
            &typed_handler<write_txn_markers_request, write_txn_markers_response, &handle>};
}

}  // namespace samsa::server::handlers
