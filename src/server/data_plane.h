#pragma once
// The broker's data plane: the log manager, the replica manager spread over the
// reactors, fetch sessions, the background pool for blocking work, and the
// periodic housekeeping (retention, flushes, checkpoints).
//
// Lifecycle: open() before the reactors start (logs are loaded and recovered
// on the calling thread), start() once they run, shutdown() after they stopped.
#include <asio/steady_timer.hpp>
#include <asio/thread_pool.hpp>
#include <atomic>
#include <memory>
#include <vector>

#include "cluster/fetch_waiters.h"
#include "cluster/replica_manager.h"
#include "common/config/broker_config.h"
#include "common/result.h"
#include "coordinator/txn/producer_id_manager.h"
#include "metadata/metadata_image.h"
#include "server/broker_context.h"
#include "server/fetch/fetch_session_cache.h"
#include "server/reactor_pool.h"
#include "storage/compaction/log_cleaner.h"
#include "storage/log_manager.h"

namespace samsa::server {

class data_plane {
  public:
    data_plane(const config::broker_config& cfg, reactor_pool& reactors);
    ~data_plane();

    status open();
    // Wires the services into `ctx` (replicas, fetch sessions, long poll,
    // producer ids). The producer id manager asks `ctx.controller` for blocks,
    // which the server sets before the listeners start.
    void attach(broker_context& ctx);
    // Arms the housekeeping timers on every shard.
    void start();
    // Closes every log cleanly (checkpoints, clean-shutdown marker). Call after
    // the reactors stopped.
    void shutdown();

    // The image's dynamic broker configs reach what is not per partition
    // (per-partition settings follow the image in the replica manager): the
    // log cleaner's log.cleaner.* (Kafka's LogCleaner.reconfigure). Any
    // thread; images in order. Nothing is done when `prev` had the same dynamic
    // configs for this broker (most images change partitions only).
    void on_metadata(const metadata::metadata_image& prev, const metadata::metadata_image& next);

    cluster::replica_manager& replicas() { return *_replicas; }
    storage::log_manager& logs() { return *_logs; }
    // nullptr without log.cleaner.enable (read-only, so the pointer never
    // changes once open() returned).
    const storage::compaction::log_cleaner* cleaner() const { return _cleaner.get(); }

  private:
    void arm_housekeeping(size_t shard);
    storage::compaction::owner_runner owner_runner();
    // Each checkpoint file is written on its own schedule (see run_checkpoint).
    void run_checkpoint(size_t kind);
    void run_deletions();
    static storage::compaction::log_cleaner_config cleaner_config_of(
        const config::broker_config& cfg);

    const config::broker_config& _cfg;
    reactor_pool& _reactors;
    asio::thread_pool _blocking;  // background.threads: fsyncs, checkpoints, deletions
    std::unique_ptr<storage::log_manager> _logs;
    std::unique_ptr<cluster::replica_manager> _replicas;
    std::unique_ptr<cluster::fetch_waiters> _fetch_waiters;
    // Compaction (log.cleaner.enable); stopped before the logs close.
    std::unique_ptr<storage::compaction::log_cleaner> _cleaner;
    fetch::fetch_session_cache _fetch_sessions;
    std::unique_ptr<coordinator::txn::producer_id_manager> _producer_ids;
    std::vector<std::unique_ptr<asio::steady_timer>> _timers;
    std::vector<std::unique_ptr<asio::steady_timer>> _isr_timers;
    void arm_isr_expiration(size_t shard);
    std::vector<std::unique_ptr<asio::steady_timer>> _checkpoint_timers;
    std::unique_ptr<asio::steady_timer> _deletion_timer;
    bool _shut_down = false;
    // Set before the background timers are cancelled: a timer handler running
    // then does not re-arm, which would hold _blocking.join() until it fired.
    std::atomic<bool> _stopping{false};
};

}  // namespace samsa::server
