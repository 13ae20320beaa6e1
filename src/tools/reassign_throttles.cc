#include "tools/reassign_throttles.h"

#include <algorithm>

#include "tools/incremental_alter_configs.h"

namespace samsa::tools {

namespace {

constexpr const char* k_client_id = "samsa-reassign-partitions";
constexpr const char* k_leader_rate = "leader.replication.throttled.rate";
constexpr const char* k_follower_rate = "follower.replication.throttled.rate";
constexpr const char* k_alter_log_dirs_rate = "replica.alter.log.dirs.io.max.bytes.per.second";
constexpr const char* k_leader_replicas = "leader.replication.throttled.replicas";
constexpr const char* k_follower_replicas = "follower.replication.throttled.replicas";

// A broker's own configs change on that broker (Kafka's admin client sends
// them there); a broker that is not in the metadata is skipped, as it cannot
// be throttling.
status alter_brokers(const client_options& opts, const std::set<int32_t>& brokers,
                     const config_ops& ops) {
    auto targets = broker_targets(opts, k_client_id);
    if (!targets) {
        return targets.err();
    }
    for (int32_t id : brokers) {
        auto it = targets->find(id);
        if (it == targets->end()) {
            continue;
        }
        if (auto st = incremental_alter_config(it->second, config_resource_broker,
                                               std::to_string(id), ops);
            !st) {
            return st;
        }
    }
    return {};
}

std::string joined(const std::set<std::pair<int32_t, int32_t>>& pairs) {
    std::string out;
    for (const auto& [p, b] : pairs) {
        out += (out.empty() ? "" : ",") + std::to_string(p) + ":" + std::to_string(b);
    }
    return out;
}

}  // namespace

reassignment_throttles throttles_for(const replica_assignment& current,
                                     const replica_assignment& target) {
    std::map<std::string, std::set<std::pair<int32_t, int32_t>>> leaders, followers;
    reassignment_throttles out;
    for (const auto& [key, replicas] : target) {
        auto it = current.find(key);
        if (it == current.end() || it->second == replicas) {
            continue;  // nothing moves
        }
        const auto& sources = it->second;
        for (int32_t b : sources) {
            leaders[key.first].insert({key.second, b});
            out.brokers.insert(b);
        }
        for (int32_t b : replicas) {
            if (std::find(sources.begin(), sources.end(), b) == sources.end()) {
                followers[key.first].insert({key.second, b});
                out.brokers.insert(b);
            }
        }
    }
    for (const auto& [topic, pairs] : leaders) {
        out.leader_replicas[topic] = joined(pairs);
    }
    for (const auto& [topic, pairs] : followers) {
        out.follower_replicas[topic] = joined(pairs);
    }
    return out;
}

status set_reassignment_throttles(const client_options& opts, const reassignment_throttles& t,
                                  int64_t rate) {
    auto to = bootstrap_target(opts, k_client_id);
    if (!to) {
        return to.err();
    }
    std::set<std::string> topics;
    for (const auto& [topic, _] : t.leader_replicas) {
        topics.insert(topic);
    }
    for (const auto& [topic, _] : t.follower_replicas) {
        topics.insert(topic);
    }
    for (const auto& topic : topics) {
        config_ops ops;
        if (auto it = t.leader_replicas.find(topic); it != t.leader_replicas.end()) {
            ops.emplace_back(k_leader_replicas, it->second);
        }
        if (auto it = t.follower_replicas.find(topic); it != t.follower_replicas.end()) {
            ops.emplace_back(k_follower_replicas, it->second);
        }
        if (auto st = incremental_alter_config(*to, config_resource_topic, topic, ops); !st) {
            return st;
        }
    }
    const std::string r = std::to_string(rate);
    return alter_brokers(opts, t.brokers, {{k_leader_rate, r}, {k_follower_rate, r}});
}

status set_log_dir_move_throttle(const client_options& opts, const std::set<int32_t>& brokers,
                                 int64_t rate) {
    return alter_brokers(opts, brokers, {{k_alter_log_dirs_rate, std::to_string(rate)}});
}

status clear_reassignment_throttles(const client_options& opts, const std::set<int32_t>& brokers,
                                    const std::set<std::string>& topics) {
    if (auto st = alter_brokers(opts, brokers,
                                {{k_leader_rate, std::nullopt},
                                 {k_follower_rate, std::nullopt},
                                 {k_alter_log_dirs_rate, std::nullopt}});
        !st) {
        return st;
    }
    auto to = bootstrap_target(opts, k_client_id);
    if (!to) {
        return to.err();
    }
    for (const auto& topic : topics) {
        if (auto st = incremental_alter_config(
                *to, config_resource_topic, topic,
                {{k_leader_replicas, std::nullopt}, {k_follower_replicas, std::nullopt}});
            !st) {
            return st;
        }
    }
    return {};
}

}  // namespace samsa::tools
