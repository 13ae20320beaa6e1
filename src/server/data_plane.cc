#include "server/data_plane.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/post.hpp>
#include <chrono>
#include <future>

#include "cluster/partition_config.h"
#include "common/clock.h"
#include "common/logging/loggers.h"
#include "metadata/config_view.h"
#include "server/quorum/controller_frontend.h"

namespace samsa::server {

namespace {

// Blocking work (fsync) runs on the pool; its completion is posted back to the
// reactor that asked, which owns the log (docs/architecture.md, "Threads").
storage::blocking_executor make_blocking_executor(asio::thread_pool& pool) {
    return [&pool](std::function<status()> job, std::function<void(status)> done) {
        asio::io_context* home = reactor_pool::current();
        asio::post(pool, [job = std::move(job), done = std::move(done), home]() mutable {
            status st = job();
            if (home) {
                asio::post(*home, [done = std::move(done), st]() { done(st); });
            } else {
                done(st);
            }
        });
    };
}

// Producer id blocks come from the controller (ProducerIdsRecord), looked up
// when needed: the server creates the controller after attach().
asio::awaitable<result<metadata::producer_id_block>> allocate_producer_ids(broker_context* ctx) {
    if (!ctx->controller) {
        co_return error(error_code::coordinator_not_available, "the controller is not running");
    }
    co_return co_await ctx->controller->allocate_producer_ids();
}

}  // namespace

data_plane::data_plane(const config::broker_config& cfg, reactor_pool& reactors)
    : _cfg(cfg),
      _reactors(reactors),
      _blocking(size_t(std::max(1, cfg.background_threads))),
      _fetch_sessions(size_t(cfg.max_incremental_fetch_session_cache_slots)) {}

data_plane::~data_plane() {
    shutdown();
}

// What recovery checked and cut, one line per partition that needed it and
// one per cut: a cut is never silent (docs/recovery.md).
static void log_recovery(const storage::log_manager& logs) {
    int recovered = 0;
    int64_t cut_bytes = 0;
    logs.for_each_log([&](const std::shared_ptr<storage::log>& l) {
        const auto& r = l->load_report();
        if (r.segments_recovered == 0) {
            return;
        }
        ++recovered;
        cut_bytes += r.bytes_truncated;
        logging::storage().info(
            "event=log_recovered partition={} segments={} segments_checked={} "
            "log_end_offset={} bytes_cut={}",
            l->partition().to_string(), r.segments, r.segments_recovered, l->log_end_offset(),
            r.bytes_truncated);
        for (const auto& c : r.cuts) {
            if (c.corrupt) {
                logging::storage().error(
                    "event=log_recovery_cut_corrupt partition={} segment={} position={} bytes={} "
                    "from_offset={} reason=\"{}\" kept_as={}",
                    l->partition().to_string(), c.segment, c.position, c.bytes, c.from_offset,
                    c.reason, c.kept_as.empty() ? "-" : c.kept_as);
            } else {
                logging::storage().warn(
                    "event=log_recovery_cut_torn_tail partition={} segment={} position={} "
                    "bytes={} from_offset={} reason=\"{}\"{}",
                    l->partition().to_string(), c.segment, c.position, c.bytes, c.from_offset,
                    c.reason, c.kept_as.empty() ? "" : " kept_as=" + c.kept_as);
            }
        }
    });
    if (recovered > 0) {
        logging::storage().info("event=recovery_done partitions_recovered={} bytes_cut={}",
                                recovered, cut_bytes);
    }
}

status data_plane::open() {
    storage::log_manager_config lc;
    lc.log_dirs = _cfg.log_dirs;
    auto defaults = config::resolve_topic_config({}, _cfg.values);
    if (!defaults) {
        return defaults.err();
    }
    lc.defaults = cluster::make_partition_config(defaults->config).log;
    lc.retention_check_interval_ms = _cfg.log_retention_check_interval_ms;
    lc.executor = make_blocking_executor(_blocking);
    lc.producer_state.producer_id_expiration_ms = _cfg.producer_id_expiration_ms;
    lc.recovery_threads_per_dir = _cfg.num_recovery_threads_per_data_dir;
    auto logs = storage::log_manager::open(std::move(lc), wall_clock_ms());
    if (!logs) {
        return logs.err();
    }
    _logs = std::move(*logs);
    for (const auto& dir : _logs->log_dirs()) {
        if (dir.offline) {
            logging::storage().error("event=log_dir_offline dir={} error=\"{}\"", dir.path,
                                     dir.offline->message);
        }
        for (const auto& w : dir.warnings) {
            logging::storage().warn("event=log_dir_warning dir={} warning=\"{}\"", dir.path, w);
        }
    }
    for (const auto& off : _logs->offline_partitions()) {
        logging::storage().error("event=partition_offline partition={} error=\"{}\"",
                                 off.tp.to_string(), off.err.message);
    }
    log_recovery(*_logs);
    logging::storage().info("event=logs_loaded count={}", _logs->log_count());
    std::vector<asio::io_context*> shards;
    for (size_t i = 0; i < _reactors.size(); ++i) {
        shards.push_back(&_reactors.at(i));
    }
    _fetch_waiters = std::make_unique<cluster::fetch_waiters>(shards);
    _replicas = std::make_unique<cluster::replica_manager>(node_id{_cfg.node_id}, std::move(shards),
                                                           *_logs, _cfg);
    // With log.cleaner.threads=0 the cleaner exists but runs no thread, so
    // that the dynamic key can start it.
    if (_cfg.log_cleaner_enable) {
        _cleaner = std::make_unique<storage::compaction::log_cleaner>(
            cleaner_config_of(_cfg), *_logs, owner_runner(), [] { return wall_clock_ms(); });
    }
    return {};
}

storage::compaction::log_cleaner_config data_plane::cleaner_config_of(
    const config::broker_config& cfg) {
    storage::compaction::log_cleaner_config cc;
    cc.threads = std::max(0, cfg.log_cleaner_threads);
    cc.dedupe_buffer_size = cfg.log_cleaner_dedupe_buffer_size;
    cc.load_factor = cfg.log_cleaner_io_buffer_load_factor;
    cc.io_max_bytes_per_second = cfg.log_cleaner_io_max_bytes_per_second;
    cc.backoff_ms = cfg.log_cleaner_backoff_ms;
    return cc;
}

void data_plane::on_metadata(const metadata::metadata_image& prev,
                             const metadata::metadata_image& image) {
    if (!_cleaner) {
        return;
    }
    if (!metadata::broker_configs_changed(prev, image, _cfg.node_id)) {
        return;
    }
    auto effective = config::build_broker_config(
        metadata::effective_broker_config(_cfg.values, image, _cfg.node_id));
    if (!effective) {
        // Validated when written; a newer definition may refuse it.
        logging::cleaner().warn("event=dynamic_config_ignored error=\"{}\"",
                                effective.err().message);
        return;
    }
    _cleaner->reconfigure(cleaner_config_of(*effective));
}

// The cleaner's plans and swaps run on the shard that owns the log; the
// cleaner thread waits, giving up when it is stopped (the reactors may be gone).
storage::compaction::owner_runner data_plane::owner_runner() {
    return [this](const storage::log& l, std::function<void()> fn, const std::atomic<bool>& stop) {
        if (!l.topic_id()) {
            return false;
        }
        size_t shard = _replicas->shard_of(*l.topic_id(), l.partition().partition);
        auto done = std::make_shared<std::promise<void>>();
        auto ran = done->get_future();
        asio::post(_reactors.at(shard), [fn = std::move(fn), done] {
            fn();
            done->set_value();
        });
        while (ran.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
            if (stop) {
                return false;
            }
        }
        return true;
    };
}

void data_plane::attach(broker_context& ctx) {
    ctx.replicas = _replicas.get();
    ctx.fetch_sessions = &_fetch_sessions;
    ctx.fetch_waiters = _fetch_waiters.get();
    auto* c = &ctx;
    _producer_ids = std::make_unique<coordinator::txn::producer_id_manager>(
        [c]() { return allocate_producer_ids(c); });
    ctx.producer_ids = _producer_ids.get();
}

void data_plane::start() {
    _replicas->mark_started();
    for (size_t i = 0; i < _reactors.size(); ++i) {
        _timers.push_back(std::make_unique<asio::steady_timer>(_reactors.at(i)));
        arm_housekeeping(i);
        _isr_timers.push_back(std::make_unique<asio::steady_timer>(_reactors.at(i)));
        arm_isr_expiration(i);
    }
    for (size_t kind = 0; kind < 3; ++kind) {
        _checkpoint_timers.push_back(std::make_unique<asio::steady_timer>(_blocking));
        run_checkpoint(kind);
    }
    _deletion_timer = std::make_unique<asio::steady_timer>(_blocking);
    run_deletions();
    if (_cleaner) {
        _cleaner->start();
    }
}

// Kafka's isr-expiration task: every replica.lag.time.max.ms / 2, so a
// follower leaves the ISR at most 1.5x that after it last caught up.
void data_plane::arm_isr_expiration(size_t shard) {
    auto& t = *_isr_timers[shard];
    t.expires_after(
        std::chrono::milliseconds(std::max<int64_t>(1, _cfg.replica_lag_time_max_ms / 2)));
    t.async_wait([this, shard](const std::error_code& ec) {
        if (ec) {
            return;
        }
        _replicas->run_isr_expiration(shard, wall_clock_ms());
        arm_isr_expiration(shard);
    });
}

// Retention every log.retention.check.interval.ms and flush checks every
// log.flush.scheduler.interval.ms, each shard over its own logs.
void data_plane::arm_housekeeping(size_t shard) {
    int64_t interval =
        std::min<int64_t>(_cfg.log_retention_check_interval_ms,
                          std::max<int64_t>(1000, _cfg.log_flush_scheduler_interval_ms));
    auto& t = *_timers[shard];
    t.expires_after(std::chrono::milliseconds(interval));
    t.async_wait([this, shard](const std::error_code& ec) {
        if (ec) {
            return;
        }
        _replicas->run_housekeeping(shard, wall_clock_ms());
        arm_housekeeping(shard);
    });
}

// Checkpoint files are written off the reactors, each every its Kafka
// interval: recovery points every log.flush.offset.checkpoint.interval.ms, log
// start offsets every log.flush.start.offset.checkpoint.interval.ms, high
// watermarks every replica.high.watermark.checkpoint.interval.ms. They read
// only the logs' atomic snapshots. (At least a second apart: 0 is no busy loop.)
void data_plane::run_checkpoint(size_t kind) {
    struct schedule {
        int64_t interval_ms;
        status (storage::log_manager::*write)();
        const char* name;
    };
    const schedule schedules[] = {
        {_cfg.log_flush_offset_checkpoint_interval_ms,
         &storage::log_manager::checkpoint_recovery_points, "recovery_points"},
        {_cfg.log_flush_start_offset_checkpoint_interval_ms,
         &storage::log_manager::checkpoint_log_start_offsets, "log_start_offsets"},
        {_cfg.replica_high_watermark_checkpoint_interval_ms,
         &storage::log_manager::checkpoint_high_watermarks, "high_watermarks"},
    };
    const schedule s = schedules[kind];
    auto& timer = *_checkpoint_timers[kind];
    timer.expires_after(std::chrono::milliseconds(std::max<int64_t>(1000, s.interval_ms)));
    timer.async_wait([this, kind, s](const std::error_code& ec) {
        if (ec || _stopping) {
            return;
        }
        if (auto st = ((*_logs).*s.write)(); !st) {
            logging::storage().warn("event=checkpoint_failed checkpoint={} error=\"{}\"", s.name,
                                    st.err().message);
        }
        if (!_stopping) {
            run_checkpoint(kind);
        }
    });
}

// Deleted segments and partitions are unlinked once file.delete.delay.ms has
// passed; a second's resolution is what Kafka's scheduler gives too.
void data_plane::run_deletions() {
    _deletion_timer->expires_after(std::chrono::seconds(1));
    _deletion_timer->async_wait([this](const std::error_code& ec) {
        if (ec || _stopping) {
            return;
        }
        if (auto st = _logs->run_pending_deletions(wall_clock_ms()); !st) {
            logging::storage().warn("event=log_deletion_failed error=\"{}\"", st.err().message);
        }
        if (!_stopping) {
            run_deletions();
        }
    });
}

void data_plane::shutdown() {
    if (_shut_down || !_logs) {
        return;
    }
    _shut_down = true;
    _stopping = true;
    if (_cleaner) {
        _cleaner->stop();
    }
    if (_deletion_timer) {
        _deletion_timer->cancel();
    }
    for (auto& t : _checkpoint_timers) {
        t->cancel();
    }
    _blocking.join();
    _timers.clear();
    _isr_timers.clear();
    _fetch_waiters.reset();
    if (auto st = _logs->shutdown(); !st) {
        logging::storage().error("event=log_shutdown_failed error=\"{}\"", st.err().message);
    } else {
        logging::storage().info("event=logs_closed clean=true");
    }
}

}  // namespace samsa::server
