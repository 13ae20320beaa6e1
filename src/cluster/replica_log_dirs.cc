// replica_manager's part of moving replicas between log dirs
// (AlterReplicaLogDirs, KIP-113; docs/log-dir-moves.md): starting, resuming
// and cancelling a move, and the task that runs one on the partition's shard.
#include <spdlog/spdlog.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>

#include "cluster/log_dir_mover.h"
#include "cluster/replica_manager.h"
#include "common/clock.h"
#include "common/logging/loggers.h"

namespace samsa::cluster {

namespace {

// How often a caught-up move looks again while its swap waits for a flush.
constexpr auto swap_retry = std::chrono::milliseconds(10);
// How long a move waits while the throttle is exceeded (Kafka's fetcher
// backs off as long, replica.fetch.backoff.ms's default).
constexpr auto throttle_wait = std::chrono::milliseconds(100);

}  // namespace

status replica_manager::alter_log_dir(size_t shard, const storage::topic_partition& tp,
                                      const std::string& dir) {
    auto& s = *_shards[shard];
    // Kafka records the dir first, so a replica created later goes there.
    _logs.set_preferred_dir(tp, dir);
    auto it = s.partitions.find(tp);
    if (it == s.partitions.end()) {
        return error{error_code::replica_not_available,
                     "the replica of " + tp.to_string() + " is not on this broker"};
    }
    auto future = _logs.create_future(tp, dir, wall_clock_ms());
    if (!future) {
        return future.err();
    }
    if (*future) {
        start_log_dir_move(s, tp);
    }
    return {};
}

void replica_manager::start_log_dir_move(shard_state& s, const storage::topic_partition& tp) {
    if (!s.moving.insert(tp).second) {
        return;  // the running task picks up the new future log
    }
    asio::co_spawn(*s.ctx, log_dir_move_task(index_of(s), tp), asio::detached);
}

std::optional<move_state> replica_manager::log_dir_move_step(shard_state& s,
                                                             const storage::topic_partition& tp,
                                                             int64_t max_bytes) {
    auto it = s.partitions.find(tp);
    auto future = _logs.get_future(tp);
    if (it == s.partitions.end() || !future) {
        return std::nullopt;
    }
    auto step = copy_to_future(*it->second, _logs, *future, max_bytes, wall_clock_ms());
    if (!step) {
        logging::replication().error("event=log_dir_move_failed partition={} error=\"{}\"",
                                     tp.to_string(), step.err().message);
        (void)_logs.remove_future(tp, wall_clock_ms());
        return std::nullopt;
    }
    _alter_log_dirs_quota.record(step->bytes, wall_clock_ms());
    if (step->state == move_state::caught_up && it->second->log()->flush_in_progress()) {
        // Appends go on while the flush runs, and with durable acks the next
        // one starts as it completes: the swap is made in that gap, which no
        // append can enter (Kafka holds the partition's lock to swap). What was
        // appended meanwhile is copied first; the throttle does not hold it.
        it->second->log()->after_flush([this, shard = index_of(s), tp, max_bytes] {
            auto& owner = *_shards[shard];
            for (auto state = log_dir_move_step(owner, tp, max_bytes);
                 state == move_state::copying;) {
                state = log_dir_move_step(owner, tp, max_bytes);
            }
        });
    }
    return step->state;
}

asio::awaitable<void> replica_manager::log_dir_move_task(size_t shard,
                                                         storage::topic_partition tp) {
    auto& s = *_shards[shard];
    asio::steady_timer timer(*s.ctx);
    const int64_t chunk = std::max<int64_t>(_cfg.replica_fetch_max_bytes, 64 * 1024);
    logging::replication().info("event=log_dir_move_started partition={}", tp.to_string());
    for (;;) {
        if (_alter_log_dirs_quota.is_exceeded(wall_clock_ms())) {
            timer.expires_after(throttle_wait);
            co_await timer.async_wait(asio::use_awaitable);
            continue;
        }
        auto state = log_dir_move_step(s, tp, chunk);
        if (!state || *state == move_state::moved) {
            break;
        }
        if (*state == move_state::copying) {
            // Requests on this shard are served between steps.
            co_await asio::post(*s.ctx, asio::use_awaitable);
            continue;
        }
        // Caught up: the swap is made as the flush in flight completes.
        timer.expires_after(swap_retry);
        co_await timer.async_wait(asio::use_awaitable);
    }
    s.moving.erase(tp);
}

}  // namespace samsa::cluster
