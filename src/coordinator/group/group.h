#pragma once
// group: what every kind of group on a __consumer_offsets partition shares
// (Kafka's Group interface): its id, its committed offsets, and the questions
// the offset half of the coordinator asks of it whatever its protocol. Two
// kinds exist: classic_group (JoinGroup/SyncGroup) and consumer_group
// (ConsumerGroupHeartbeat, KIP-848). A group id names at most one group of
// either kind; an empty group of one kind is converted when a member of the
// other kind arrives (group_partitions::convert).
//
// Threading: owned by its partition, on the partition's shard.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/group/group_offsets.h"

namespace samsa::coordinator {

enum class group_type : uint8_t { classic, consumer };

// ListGroups' names for the types (KIP-848): "classic", "consumer".
std::string_view group_type_name(group_type t);

class group {
  public:
    explicit group(std::string group_id) : _group_id(std::move(group_id)) {}
    virtual ~group() = default;
    group(const group&) = delete;
    group& operator=(const group&) = delete;

    const std::string& group_id() const { return _group_id; }
    virtual group_type type() const = 0;
    // Kafka's Group.isEmpty: no members (a Dead group is not empty).
    virtual bool is_empty() const = 0;
    virtual bool is_dead() const = 0;
    // The group is being removed: Dead, and it serves nothing more.
    virtual void mark_dead(int64_t now_ms) = 0;
    // The state as ListGroups and DescribeGroups name it.
    virtual std::string state_name() const = 0;
    // ListGroups' protocol type: a consumer group's is "consumer".
    virtual std::string protocol_type_name() const = 0;
    // Whether a member consumes `topic` (OffsetDelete refuses its offsets,
    // retention keeps them).
    virtual bool is_subscribed_to_topic(const std::string& topic) const = 0;
    // Removes and returns the offsets that expired at `now_ms` (Kafka's
    // OffsetExpirationCondition of each group type).
    virtual std::vector<storage::topic_partition> expire_offsets(int64_t now_ms,
                                                                 int64_t retention_ms) = 0;

    group_offsets& offsets() { return _offsets; }
    const group_offsets& offsets() const { return _offsets; }

  private:
    std::string _group_id;
    group_offsets _offsets;
};

// A group as its partition holds it (the classes that serve one kind use a
// method named group(), which hides the type inside them).
using shared_group = std::shared_ptr<group>;

}  // namespace samsa::coordinator
