#pragma once
// The committed offsets of one group (Kafka's GroupMetadata.offsets), as the
// coordinator serves them to OffsetFetch: an in-memory cache rebuilt from
// __consumer_offsets on load (seed inventory OFS-06), never read from the log
// on a request.
//
// Expiration (offsets.retention.minutes, KIP-211): an offset with an explicit
// expire timestamp (OffsetCommit v2-v4 retention_time_ms) expires then;
// otherwise `retention_ms` after a base timestamp the group chooses (the time
// the group became empty, or the commit time). See classic_group::expire_offsets.
//
// Threading: owned by its group, on the group's shard.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/topic_partition.h"

namespace samsa::coordinator {

struct offset_and_metadata {
    int64_t offset = -1;
    int32_t leader_epoch = -1;  // -1: none (before KIP-320)
    std::string metadata;
    int64_t commit_timestamp_ms = -1;
    std::optional<int64_t> expire_timestamp_ms;  // only from OffsetCommit v2-v4

    bool operator==(const offset_and_metadata&) const = default;
};

class group_offsets {
  public:
    using map_type = std::map<storage::topic_partition, offset_and_metadata>;

    const offset_and_metadata* get(const storage::topic_partition& tp) const;
    void put(const storage::topic_partition& tp, offset_and_metadata om) {
        _offsets[tp] = std::move(om);
    }
    bool remove(const storage::topic_partition& tp) { return _offsets.erase(tp) > 0; }
    void clear() { _offsets.clear(); }

    bool empty() const { return _offsets.empty(); }
    size_t size() const { return _offsets.size(); }
    const map_type& all() const { return _offsets; }

    // Removes and returns every partition of the topics in `topics`.
    std::vector<storage::topic_partition> remove_topics(const std::set<std::string>& topics);

    // Removes and returns the offsets that expired at `now_ms`, skipping the
    // topics in `keep_topics`. `base_timestamp(om)` is when retention starts
    // counting for an offset without an explicit expire timestamp.
    std::vector<storage::topic_partition> remove_expired(
        int64_t now_ms, int64_t retention_ms,
        const std::function<int64_t(const offset_and_metadata&)>& base_timestamp,
        const std::set<std::string>& keep_topics = {});

  private:
    map_type _offsets;
};

}  // namespace samsa::coordinator
