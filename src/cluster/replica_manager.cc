#include "cluster/replica_manager.h"

#include <spdlog/spdlog.h>

#include <asio/post.hpp>
#include <chrono>

#include "common/clock.h"
#include "common/logging/loggers.h"
#include "metadata/config_view.h"

namespace samsa::cluster {

replica_manager::replica_manager(samsa::node_id local_node, std::vector<asio::io_context*> shards,
                                 storage::log_manager& logs, const config::broker_config& cfg)
    : _local_node(local_node),
      _logs(logs),
      _cfg(cfg),
      _leader_quota(cfg.replication_quota_window_num,
                    int64_t(cfg.replication_quota_window_size_seconds) * 1000),
      _follower_quota(cfg.replication_quota_window_num,
                      int64_t(cfg.replication_quota_window_size_seconds) * 1000),
      _alter_log_dirs_quota(cfg.replication_quota_window_num,
                            int64_t(cfg.replication_quota_window_size_seconds) * 1000) {
    _leader_quota.set_bound(cfg.values.get_long("leader.replication.throttled.rate"));
    _follower_quota.set_bound(cfg.values.get_long("follower.replication.throttled.rate"));
    _alter_log_dirs_quota.set_bound(
        cfg.values.get_long("replica.alter.log.dirs.io.max.bytes.per.second"));
    for (auto* ctx : shards) {
        auto s = std::make_unique<shard_state>();
        s->ctx = ctx;
        _shards.push_back(std::move(s));
    }
}

size_t replica_manager::shard_of(const uuid& topic_id, int32_t partition) const {
    size_t h = uuid_hash{}(topic_id) ^ (size_t(uint32_t(partition)) * 0x9e3779b97f4a7c15ULL);
    return h % _shards.size();
}

partition* replica_manager::get(size_t shard, const storage::topic_partition& tp) {
    auto& parts = _shards[shard]->partitions;
    auto it = parts.find(tp);
    return it == parts.end() ? nullptr : it->second.get();
}

partition_config replica_manager::config_for(const metadata::metadata_image& image,
                                             const metadata::topic_image& topic) const {
    return config_for(image, topic,
                      metadata::effective_broker_config(_cfg.values, image, _local_node.value()));
}

partition_config replica_manager::config_for(const metadata::metadata_image& image,
                                             const metadata::topic_image& topic,
                                             const config::config_set& broker) const {
    static const std::map<std::string, std::string> k_none;
    auto it = image.topic_configs.find(topic.name);
    const auto& overrides = it == image.topic_configs.end() ? k_none : it->second;
    // Dynamic broker configs (AlterConfigs on a broker or the cluster
    // default) are topic defaults as the static file's are: a topic without
    // an override follows them (Kafka's DynamicLogConfig).
    auto resolved = config::resolve_topic_config(overrides, broker);
    partition_config out;
    if (resolved) {
        out = make_partition_config(resolved->config);
    } else {
        // Overrides were validated when written; a failure here means the
        // broker's own defaults changed under them. Keep the broker defaults.
        logging::replication().warn("event=topic_config_invalid topic={} error=\"{}\"", topic.name,
                                    resolved.err().message);
        auto fallback = config::resolve_topic_config(k_none, broker);
        out = fallback ? make_partition_config(fallback->config) : partition_config{};
    }
    // producer.id.expiration.ms is a broker setting every log's producer
    // state follows, dynamic cluster-wide in Kafka.
    out.producer_id_expiration_ms = broker.get_int("producer.id.expiration.ms");
    return out;
}

void replica_manager::ensure_partition(shard_state& s, const metadata::topic_image& topic,
                                       const metadata::partition_registration& reg,
                                       const partition_config& cfg) {
    storage::topic_partition tp{topic.name, reg.partition};
    auto it = s.partitions.find(tp);
    if (it == s.partitions.end()) {
        auto log = _logs.get_or_create(tp, topic.id, wall_clock_ms());
        if (!log) {
            logging::replication().error("event=partition_offline partition={} error=\"{}\"",
                                         tp.to_string(), log.err().message);
            return;
        }
        auto p = std::make_shared<partition>(tp, topic.id, _local_node, std::move(*log));
        p->set_leadership_lease(&_lease);
        const size_t shard = index_of(s);
        p->set_replication(_cfg.replica_lag_time_max_ms, [this, shard](const isr_proposal& pr) {
            if (_isr_sink) {
                _isr_sink(shard, pr);
            }
        });
        it = s.partitions.emplace(tp, std::move(p)).first;
        // A move between log dirs a restart interrupted goes on.
        if (_logs.get_future(tp)) {
            start_log_dir_move(s, tp);
        }
    }
    bool was_leader = it->second->is_leader();
    int32_t old_epoch = it->second->leader_epoch();
    it->second->update_config(cfg);
    it->second->update_registration(reg);
    bool is_leader = it->second->is_leader();
    if (is_leader != was_leader || (is_leader && old_epoch != it->second->leader_epoch())) {
        notify_leadership(s, tp, it->second.get(), is_leader);
    }
}

size_t replica_manager::index_of(const shard_state& s) const {
    for (size_t i = 0; i < _shards.size(); ++i) {
        if (_shards[i].get() == &s) {
            return i;
        }
    }
    return 0;
}

void replica_manager::notify_leadership(shard_state& s, const storage::topic_partition& tp,
                                        partition* p, bool is_leader) {
    const size_t shard = index_of(s);
    for (const auto& l : _listeners) {
        l(shard, tp, p, is_leader);
    }
}

void replica_manager::remove_partition(shard_state& s, const storage::topic_partition& tp,
                                       bool delete_log) {
    auto it = s.partitions.find(tp);
    if (it != s.partitions.end() && it->second->is_leader()) {
        notify_leadership(s, tp, nullptr, false);
    }
    s.partitions.erase(tp);
    if (delete_log) {
        if (auto st = _logs.delete_log(tp, wall_clock_ms()); !st) {
            logging::replication().warn("event=log_delete_failed partition={} error=\"{}\"",
                                        tp.to_string(), st.err().message);
        }
    }
}

void replica_manager::apply_metadata(const metadata::metadata_image& prev,
                                     const metadata::metadata_image& next) {
    // Work per shard, built here and run on each shard.
    std::vector<std::vector<std::function<void()>>> work(_shards.size());
    const auto broker = metadata::effective_broker_config(_cfg.values, next, _local_node.value());
    _leader_quota.set_bound(broker.get_long("leader.replication.throttled.rate"));
    _follower_quota.set_bound(broker.get_long("follower.replication.throttled.rate"));
    _alter_log_dirs_quota.set_bound(
        broker.get_long("replica.alter.log.dirs.io.max.bytes.per.second"));

    for (const auto& entry : next.topics_by_name) {
        // Named, not a structured binding: clang 14 (the fuzz build) cannot
        // capture bindings in the lambdas below.
        const auto& name = entry.first;
        const auto& topic = entry.second;
        partition_config cfg = config_for(next, *topic, broker);
        for (const auto& reg : topic->partitions) {
            size_t shard = shard_of(topic->id, reg.partition);
            auto& s = *_shards[shard];
            if (contains(reg.replicas, _local_node)) {
                work[shard].push_back(
                    [this, &s, topic, reg, cfg] { ensure_partition(s, *topic, reg, cfg); });
            } else {
                storage::topic_partition tp{name, reg.partition};
                work[shard].push_back([this, &s, tp] {
                    if (s.partitions.count(tp)) {
                        remove_partition(s, tp, true);
                    }
                });
            }
        }
    }
    // Topics that are gone (deleted, or re-created under a new id).
    for (const auto& [id, topic] : prev.topics_by_id) {
        if (next.topics_by_id.count(id)) {
            continue;
        }
        for (const auto& reg : topic->partitions) {
            size_t shard = shard_of(id, reg.partition);
            auto& s = *_shards[shard];
            storage::topic_partition tp{topic->name, reg.partition};
            work[shard].push_back([this, &s, tp] { remove_partition(s, tp, true); });
        }
    }

    for (size_t i = 0; i < _shards.size(); ++i) {
        if (work[i].empty()) {
            continue;
        }
        auto& s = *_shards[i];
        auto& ctx = *s.ctx;
        std::unique_lock lock(s.pending_mutex);
        // Before the reactors run (start-up), or on the shard itself with
        // nothing queued before it: run inline.
        if (s.pending.empty() && !s.draining &&
            (ctx.stopped() || ctx.get_executor().running_in_this_thread() || !_started)) {
            lock.unlock();
            for (const auto& j : work[i]) {
                j();
            }
            continue;
        }
        // Not waited for: the metadata thread must not stall behind a shard
        // (becoming leader writes the leader-epoch checkpoint with an fsync),
        // or every later image, and the Raft replica, stall with it. The
        // shard runs its queue in order, so images still apply in order; it
        // runs it in time slices, so that an image creating thousands of
        // partitions (a single CreateTopics may) does not stop the shard from
        // answering requests for minutes.
        for (auto& j : work[i]) {
            s.pending.push_back(std::move(j));
        }
        if (!s.draining) {
            s.draining = true;
            asio::post(ctx, [this, &s] { drain_pending(s); });
        }
    }
}

void replica_manager::drain_pending(shard_state& s) {
    constexpr auto k_slice = std::chrono::milliseconds(20);
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        std::function<void()> job;
        {
            std::lock_guard lock(s.pending_mutex);
            if (s.pending.empty()) {
                s.draining = false;
                return;
            }
            if (std::chrono::steady_clock::now() - start >= k_slice) {
                asio::post(*s.ctx, [this, &s] { drain_pending(s); });
                return;
            }
            job = std::move(s.pending.front());
            s.pending.pop_front();
        }
        job();
    }
}

void replica_manager::run_isr_expiration(size_t shard, int64_t now) {
    for (auto& [tp, p] : _shards[shard]->partitions) {
        p->maybe_shrink_isr(now);
    }
}

void replica_manager::run_housekeeping(size_t shard, int64_t now) {
    for (auto& [tp, p] : _shards[shard]->partitions) {
        auto deleted = p->log()->delete_old_segments(now);
        if (!deleted) {
            logging::replication().warn("event=retention_failed partition={} error=\"{}\"",
                                        tp.to_string(), deleted.err().message);
        } else if (*deleted > 0) {
            logging::replication().info("event=segments_deleted partition={} count={}",
                                        tp.to_string(), *deleted);
        }
        p->log()->flush_if_due(now);
    }
}

}  // namespace samsa::cluster
