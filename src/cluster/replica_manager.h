#pragma once
// replica_manager: the partitions this broker hosts (Kafka's ReplicaManager),
// spread over the reactor shards (docs/architecture.md, "Threads").
//
// Each partition belongs to the shard chosen by a hash of its topic id and
// partition number; its `partition` object lives in that shard's table and is
// touched only on that shard's thread. Handlers hop to the owning shard with
// run_on_shard() (one hop per shard per request) and get results back on their
// own reactor.
//
// The metadata image drives the set of partitions: on every new image,
// apply_metadata() creates the local logs of partitions this node now
// replicates, updates leaders / ISR / configs, and deletes the logs of topics
// that are gone (docs/architecture.md, "Metadata": what LeaderAndIsr and StopReplica used to do).
#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "cluster/leadership_lease.h"
#include "cluster/log_dir_mover.h"
#include "cluster/partition.h"
#include "cluster/replication_quota.h"
#include "common/busy_time.h"
#include "common/config/broker_config.h"
#include "metadata/metadata_image.h"
#include "storage/log_manager.h"
#include "storage/topic_partition.h"

namespace samsa::cluster {

class replica_manager {
  public:
    replica_manager(samsa::node_id local_node, std::vector<asio::io_context*> shards,
                    storage::log_manager& logs, const config::broker_config& cfg);
    replica_manager(const replica_manager&) = delete;
    replica_manager& operator=(const replica_manager&) = delete;

    size_t shard_count() const { return _shards.size(); }
    samsa::node_id local_node() const { return _local_node; }
    // Renewed by the broker's heartbeats, read by every partition it holds.
    leadership_lease& lease() { return _lease; }
    size_t shard_of(const uuid& topic_id, int32_t partition) const;
    asio::io_context& shard_context(size_t shard) { return *_shards[shard]->ctx; }

    // Runs `fn()` (returning T) on `shard` and resumes the caller on its own
    // executor with the result. Runs inline when already on that shard.
    // Pass a named callable, not a lambda written inside the co_await: GCC 12
    // destroys temporaries of a co_await operand twice.
    template <typename T, typename Fn>
    asio::awaitable<T> run_on_shard(size_t shard, Fn& fn) {
        auto& ctx = *_shards[shard]->ctx;
        if (ctx.get_executor().running_in_this_thread()) {
            co_return fn();
        }
        // Work done there for a timed request counts as the request's own
        // (common/busy_time.h).
        auto task = [&fn, account = current_busy_account_handle()]() -> asio::awaitable<T> {
            const auto held = account.lock();  // the request may be gone
            busy_scope busy(held.get());
            co_return fn();
        };
        co_return co_await asio::co_spawn(ctx, std::move(task), asio::use_awaitable);
    }

    // On the owning shard only: the partition, or nullptr.
    partition* get(size_t shard, const storage::topic_partition& tp);

    // Reconciles local partitions with `next` (any thread; the work is posted
    // to the shards, in order, and not waited for: work that reaches a shard
    // after this call, a request for a new partition say, finds it in place).
    void apply_metadata(const metadata::metadata_image& prev, const metadata::metadata_image& next);

    // Called on the partition's shard after a metadata image changed its
    // leadership (became leader: `is_leader`; became follower or removed:
    // !is_leader, and `p` is null when removed). The coordinators load and
    // unload their state from here. Register before start.
    using leadership_listener = std::function<void(size_t shard, const storage::topic_partition& tp,
                                                   partition* p, bool is_leader)>;
    void add_leadership_listener(leadership_listener l) { _listeners.push_back(std::move(l)); }

    // After the reactors started: apply_metadata() then posts shard work
    // (before, it runs the work inline on the calling thread).
    void mark_started() { _started = true; }

    // Per shard: retention and flush checks of its logs (scheduled by the server).
    void run_housekeeping(size_t shard, int64_t now_ms);
    // ISR expiration (every replica.lag.time.max.ms / 2): leaders on `shard`
    // propose to drop lagging followers.
    void run_isr_expiration(size_t shard, int64_t now_ms);
    // Where leaders' ISR proposals go (AlterPartition to the controller);
    // called on the partition's shard. Set before start.
    using isr_sink = std::function<void(size_t shard, const isr_proposal& proposal)>;
    void set_isr_sink(isr_sink sink) { _isr_sink = std::move(sink); }

    // A topic's effective config: its overrides in `image` over the broker's
    // defaults, the image's dynamic broker configs included (any thread).
    partition_config config_for(const metadata::metadata_image& image,
                                const metadata::topic_image& topic) const;
    // The same with the broker's effective config already worked out
    // (metadata::effective_broker_config), for many topics of one image.
    partition_config config_for(const metadata::metadata_image& image,
                                const metadata::topic_image& topic,
                                const config::config_set& broker) const;

    // Every local partition's log, for DescribeLogDirs (any thread; the sizes
    // are atomics read from the logs).
    storage::log_manager& logs() { return _logs; }

    // Replication throttles (KIP-73): what this broker sends as a leader to
    // throttled catching-up followers, and what it fetches for its throttled
    // catching-up replicas. Their bounds follow the image's
    // leader/follower.replication.throttled.rate.
    replication_quota& leader_quota() { return _leader_quota; }
    replication_quota& follower_quota() { return _follower_quota; }
    // What moves between log dirs copy
    // (replica.alter.log.dirs.io.max.bytes.per.second).
    replication_quota& alter_log_dirs_quota() { return _alter_log_dirs_quota; }

    // AlterReplicaLogDirs (KIP-113; docs/log-dir-moves.md), on tp's shard:
    // moves tp's replica into log dir `dir` (a configured dir, as
    // log_manager::online_log_dir names it), or cancels a move when `dir`
    // holds it already. A replica not created yet goes to `dir` when it is.
    // REPLICA_NOT_AVAILABLE when tp is not on this broker (yet),
    // KAFKA_STORAGE_ERROR when it is offline.
    status alter_log_dir(size_t shard, const storage::topic_partition& tp, const std::string& dir);

  private:
    struct shard_state {
        asio::io_context* ctx = nullptr;
        std::unordered_map<storage::topic_partition, std::shared_ptr<partition>,
                           storage::topic_partition_hash>
            partitions;
        // Metadata work waiting to run on the shard, in image order, and
        // whether a drain is posted (guarded by `pending_mutex`).
        std::mutex pending_mutex;
        std::deque<std::function<void()>> pending;
        bool draining = false;
        // Partitions whose move between log dirs runs (log_dir_move_task).
        std::set<storage::topic_partition> moving;
    };
    size_t index_of(const shard_state& s) const;
    // Starts the copy of tp's future log on shard `s` unless it runs.
    void start_log_dir_move(shard_state& s, const storage::topic_partition& tp);
    asio::awaitable<void> log_dir_move_task(size_t shard, storage::topic_partition tp);
    // One copy step of tp's move (throttled bytes counted); a failure drops
    // the future log. Nothing when the move ended (cancelled, swapped, the
    // replica left).
    std::optional<move_state> log_dir_move_step(shard_state& s, const storage::topic_partition& tp,
                                                int64_t max_bytes);

    // Runs the shard's pending metadata work for at most one time slice,
    // then posts itself again: requests on the shard are served between
    // slices, however much work an image brings (partition creation fsyncs).
    void drain_pending(shard_state& s);

    // On the partition's shard.
    void notify_leadership(shard_state& s, const storage::topic_partition& tp, partition* p,
                           bool is_leader);
    void ensure_partition(shard_state& s, const metadata::topic_image& topic,
                          const metadata::partition_registration& reg, const partition_config& cfg);
    void remove_partition(shard_state& s, const storage::topic_partition& tp, bool delete_log);

    samsa::node_id _local_node;
    leadership_lease _lease;
    std::vector<std::unique_ptr<shard_state>> _shards;
    storage::log_manager& _logs;
    const config::broker_config& _cfg;
    std::atomic<bool> _started{false};
    std::vector<leadership_listener> _listeners;
    isr_sink _isr_sink;
    replication_quota _leader_quota;
    replication_quota _follower_quota;
    replication_quota _alter_log_dirs_quota;
};

}  // namespace samsa::cluster
