#include "tools/replica_log_dir_moves.h"

#include <chrono>
#include <cstdio>
#include <set>
#include <thread>
#include <vector>

#include "common/error.h"
#include "net/blocking_call.h"
#include "protocol/generated/alter_replica_log_dirs_request.h"
#include "protocol/generated/alter_replica_log_dirs_response.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"
#include "tools/json_file.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

constexpr const char* k_client_id = "samsa-reassign-partitions";
constexpr std::string_view any_log_dir = "any";

std::string list_of(const nlohmann::json& a) {
    std::string out = "[";
    for (const auto& v : a) {
        out += (out.size() > 1 ? ", " : "") + (v.is_string() ? v.get<std::string>() : v.dump());
    }
    return out + "]";
}

// One broker's answer: the replicas moved into the dir asked for (and
// REPLICA_NOT_AVAILABLE ones left out), or the first other refusal.
result<std::set<partition_replica>> alter_on(const net::blocking_target& to, int32_t broker,
                                             const log_dir_moves& moves) {
    protocol::alter_replica_log_dirs_request req;
    for (const auto& [r, dir] : moves) {
        if (r.broker != broker) {
            continue;
        }
        auto d = std::find_if(req.dirs.begin(), req.dirs.end(),
                              [&dir = dir](const auto& x) { return x.path == dir; });
        if (d == req.dirs.end()) {
            d = req.dirs.emplace(req.dirs.end());
            d->path = dir;
        }
        if (d->topics.empty() || d->topics.back().name != r.topic) {
            d->topics.emplace_back().name = r.topic;
        }
        d->topics.back().partitions.push_back(r.partition);
    }
    auto resp = net::call_blocking<protocol::alter_replica_log_dirs_response>(to, req, 2);
    if (!resp) {
        return resp.err();
    }
    std::set<partition_replica> started;
    for (const auto& t : resp->results) {
        for (const auto& p : t.partitions) {
            partition_replica r{t.topic_name, p.partition_index, broker};
            if (p.error_code == 0) {
                started.insert(r);
            } else if (error_code(p.error_code) != error_code::replica_not_available) {
                return tool_error("Failed to alter dir for " + r.to_string() + ": " +
                                  message_of(p.error_code, std::nullopt));
            }
        }
    }
    return started;
}

struct replica_dirs {
    std::string current, future;  // empty: none
};

}  // namespace

std::string partition_replica::to_string() const {
    return topic + "-" + std::to_string(partition) + "-" + std::to_string(broker);
}

result<log_dir_moves> read_log_dir_moves(const std::string& path) {
    auto j = read_json_file(path);
    if (!j) {
        return j.err();
    }
    log_dir_moves out;
    if (j->is_discarded() || !j->is_object() || !j->contains("partitions") ||
        !(*j)["partitions"].is_array()) {
        return out;  // the plan's own reader says what is wrong
    }
    for (const auto& p : (*j)["partitions"]) {
        if (!p.is_object() || !p.contains("log_dirs") || !p.contains("replicas") ||
            !p["replicas"].is_array() || !p.contains("topic") || !p["topic"].is_string() ||
            !p.contains("partition") || !p["partition"].is_number_integer()) {
            continue;
        }
        const auto& dirs = p["log_dirs"];
        const auto& replicas = p["replicas"];
        const auto topic = p["topic"].get<std::string>();
        const auto partition = p["partition"].get<int32_t>();
        if (!dirs.is_array() || dirs.size() != replicas.size()) {
            return error(error_code::invalid_config,
                         "Size of replicas list " + list_of(replicas) +
                             " is different from size of log dirs list " + list_of(dirs) +
                             " for partition " + topic + "-" + std::to_string(partition));
        }
        for (size_t i = 0; i < dirs.size(); ++i) {
            if (!dirs[i].is_string() || !replicas[i].is_number_integer()) {
                return error(error_code::invalid_config,
                             path + ": log_dirs are paths or \"any\", replicas broker ids");
            }
            const auto dir = dirs[i].get<std::string>();
            if (dir != any_log_dir) {
                out[{topic, partition, replicas[i].get<int32_t>()}] = dir;
            }
        }
    }
    return out;
}

status start_log_dir_moves(const client_options& opts, const log_dir_moves& moves) {
    const auto deadline = std::chrono::steady_clock::now() + opts.timeout;
    log_dir_moves pending = moves;
    for (;;) {
        auto targets = broker_targets(opts, k_client_id);
        if (!targets) {
            return targets.err();
        }
        std::set<int32_t> brokers;
        for (const auto& [r, _] : pending) {
            brokers.insert(r.broker);
        }
        std::set<partition_replica> started;
        for (int32_t broker : brokers) {
            auto to = targets->find(broker);
            if (to == targets->end()) {
                continue;  // not up yet: tried again
            }
            auto done = alter_on(to->second, broker, pending);
            if (!done) {
                return done.err();
            }
            started.insert(done->begin(), done->end());
        }
        for (const auto& r : started) {
            // Kafka's line, its trailing blank included.
            std::printf(
                "Successfully started moving log directory to %s for replica %s-%d with broker "
                "%d \n",
                pending.at(r).c_str(), r.topic.c_str(), r.partition, r.broker);
            pending.erase(r);
        }
        if (pending.empty()) {
            return {};
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            std::string names;
            for (const auto& [r, _] : pending) {
                names += (names.empty() ? "" : ",") + r.to_string();
            }
            return tool_error(std::string("Timed out before log directory move") +
                              (pending.size() == 1 ? "" : "s") + " could be started for: " + names);
        }
        // A replica a reassignment adds to a broker is not there at once.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

result<bool> verify_log_dir_moves(const client_options& opts, const log_dir_moves& moves) {
    auto targets = broker_targets(opts, k_client_id);
    if (!targets) {
        return targets.err();
    }
    std::map<int32_t, std::map<std::pair<std::string, int32_t>, replica_dirs>> found;
    std::set<int32_t> answered;
    for (const auto& [r, _] : moves) {
        if (answered.count(r.broker) || !targets->count(r.broker)) {
            continue;
        }
        protocol::describe_log_dirs_request req;
        req.topics.emplace();
        for (const auto& [other, dir] : moves) {
            if (other.broker != r.broker) {
                continue;
            }
            if (req.topics->empty() || req.topics->back().topic != other.topic) {
                req.topics->emplace_back().topic = other.topic;
            }
            req.topics->back().partitions.push_back(other.partition);
        }
        auto resp =
            net::call_blocking<protocol::describe_log_dirs_response>(targets->at(r.broker), req, 4);
        if (!resp) {
            continue;  // reported as not found on that broker
        }
        answered.insert(r.broker);
        auto& dirs = found[r.broker];
        for (const auto& d : resp->results) {
            for (const auto& t : d.topics) {
                for (const auto& p : t.partitions) {
                    auto& rd = dirs[{t.name, p.partition_index}];
                    (p.is_future_key ? rd.future : rd.current) = d.log_dir;
                }
            }
        }
    }
    bool ongoing = false;
    for (const auto& [r, target] : moves) {
        const auto name = r.topic + "-" + std::to_string(r.partition);
        const auto on = " on broker " + std::to_string(r.broker);
        if (!answered.count(r.broker)) {
            ongoing = true;
            std::printf("Partition %s cannot be found in any live log directory%s.\n", name.c_str(),
                        on.c_str());
            continue;
        }
        auto it = found[r.broker].find({r.topic, r.partition});
        const replica_dirs dirs = it == found[r.broker].end() ? replica_dirs{} : it->second;
        if (dirs.current.empty()) {
            ongoing = true;
            std::printf(
                "Partition %s is not found in any live log dir%s. There is likely an offline log "
                "directory on the broker.\n",
                name.c_str(), on.c_str());
        } else if (!dirs.future.empty()) {
            ongoing = true;
            if (dirs.future == target) {
                std::printf("Reassignment of replica %s is still in progress.\n",
                            r.to_string().c_str());
            } else {
                std::printf("Partition %s%s is being moved to log dir %s instead of %s.\n",
                            name.c_str(), on.c_str(), dirs.future.c_str(), target.c_str());
            }
        } else if (dirs.current == target) {
            std::printf("Reassignment of replica %s completed successfully.\n",
                        r.to_string().c_str());
        } else {
            std::printf("Partition %s%s is not being moved from log dir %s to %s.\n", name.c_str(),
                        on.c_str(), dirs.current.c_str(), target.c_str());
        }
    }
    return ongoing;
}

}  // namespace samsa::tools
