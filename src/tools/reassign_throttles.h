#pragma once
// The replication throttles of `samsa reassign-partitions --throttle`, as
// kafka-reassign-partitions.sh sets and clears them (KIP-73):
//
//   --execute --throttle R   each moving partition's current replicas are
//                            leader-throttled ("p:b" in the topic's
//                            leader.replication.throttled.replicas), its new
//                            replicas follower-throttled
//                            (follower.replication.throttled.replicas), and
//                            every broker involved gets
//                            leader/follower.replication.throttled.rate = R;
//   --replica-alter-log-dirs-throttle R
//                            every broker moving a replica between its log
//                            dirs gets replica.alter.log.dirs.io.max.bytes.
//                            per.second = R;
//   --verify                 once every partition and replica of the file
//                            has moved, the rates are deleted on every broker
//                            and both lists on every topic of the file.
//
// The changes are IncrementalAlterConfigs, raw (the librdkafka this links has
// no API for them); a broker's own configs go to that broker.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "tools/client_options.h"

namespace samsa::tools {

// Replicas by (topic, partition).
using replica_assignment = std::map<std::pair<std::string, int32_t>, std::vector<int32_t>>;

// Kafka's calculateLeaderThrottles / calculateFollowerThrottles: per topic,
// the "partition:broker" list of the replicas sending (current) and the
// replicas receiving (target minus current) the partitions that move.
struct reassignment_throttles {
    std::map<std::string, std::string> leader_replicas;    // topic -> "0:1,0:2"
    std::map<std::string, std::string> follower_replicas;  // topic -> "0:3"
    std::set<int32_t> brokers;                             // every sender and receiver
};
reassignment_throttles throttles_for(const replica_assignment& current,
                                     const replica_assignment& target);

// Sets the topics' lists and the brokers' rates (bytes per second).
status set_reassignment_throttles(const client_options& opts, const reassignment_throttles& t,
                                  int64_t rate);
// --replica-alter-log-dirs-throttle: what moves between the log dirs of
// `brokers` may copy (replica.alter.log.dirs.io.max.bytes.per.second).
status set_log_dir_move_throttle(const client_options& opts, const std::set<int32_t>& brokers,
                                 int64_t rate);
// Deletes the rates (the log dir one too) on `brokers` and the lists on `topics`.
status clear_reassignment_throttles(const client_options& opts, const std::set<int32_t>& brokers,
                                    const std::set<std::string>& topics);

}  // namespace samsa::tools
