#pragma once
// replication_quota: one direction of this broker's replication throttle
// (Kafka's ReplicationQuotaManager, KIP-73): the bytes a leader sends to
// throttled followers (leader.replication.throttled.rate) or the bytes this
// broker fetches for its throttled follower replicas
// (follower.replication.throttled.rate), measured over
// replication.quota.window.num windows of replication.quota.window.size.seconds.
//
// Which replicas are throttled is per topic: leader.replication.throttled.replicas
// and follower.replication.throttled.replicas list "partition:broker" pairs
// (or "*"), and a replica is throttled on this broker when its pair names this
// broker (replica_throttled). A throttled replica that is in sync is never held
// back: only catching-up replicas (a reassignment's new ones) wait, as in Kafka.
//
// Any thread: the fetch handlers on every reactor and the replica fetchers
// record and ask at once.
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "common/kafka_types.h"
#include "common/sampled_rate.h"

namespace samsa::cluster {

class replication_quota {
  public:
    static constexpr int64_t unbounded = std::numeric_limits<int64_t>::max();

    replication_quota(int samples, int64_t window_ms);

    // The bound in bytes per second (the dynamic rate config); unbounded
    // (Long.MAX_VALUE, Kafka's default) throttles nothing.
    void set_bound(int64_t bytes_per_second);
    int64_t bound() const { return _bound.load(std::memory_order_relaxed); }
    // Whether the measured rate is above the bound now (Kafka's
    // isQuotaExceeded): throttled replicas then get nothing this round.
    bool is_exceeded(int64_t now_ms);
    // Bytes moved for throttled replicas.
    void record(int64_t bytes, int64_t now_ms);
    // Bytes per second over the windows (metrics, tests).
    double rate(int64_t now_ms);

  private:
    std::atomic<int64_t> _bound{unbounded};
    std::mutex _mu;
    sampled_rate _rate;
};

// Whether `list` (a topic's *.replication.throttled.replicas) throttles
// replica `partition` on broker `node`: "*" throttles every replica.
bool replica_throttled(const std::vector<std::string>& list, int32_t partition, node_id node);

}  // namespace samsa::cluster
