#pragma once
// The "log_dirs" of a kafka-reassign-partitions.sh plan: replicas moved
// between the log dirs of their broker (AlterReplicaLogDirs, KIP-113), as
// Kafka's tool starts them with --execute and reports them with --verify.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "common/result.h"
#include "tools/client_options.h"

namespace samsa::tools {

// Kafka's TopicPartitionReplica, sorted as its tool sorts them.
struct partition_replica {
    std::string topic;
    int32_t partition = 0;
    int32_t broker = 0;
    auto operator<=>(const partition_replica&) const = default;
    // "t-0-1", as Java prints one.
    std::string to_string() const;
};

// Each replica whose plan entry names a log dir rather than "any".
using log_dir_moves = std::map<partition_replica, std::string>;

// The plan's moves. Kafka's checks: log_dirs, when given, has one entry per
// replica.
result<log_dir_moves> read_log_dir_moves(const std::string& path);

// --execute: asks each replica's broker to move it, retrying those not there
// yet (a reassignment creates them) every 100 ms for up to `opts.timeout`.
// Prints Kafka's line per move started.
status start_log_dir_moves(const client_options& opts, const log_dir_moves& moves);

// --verify: one line per replica, in Kafka's words; whether any move is
// still going on.
result<bool> verify_log_dir_moves(const client_options& opts, const log_dir_moves& moves);

}  // namespace samsa::tools
