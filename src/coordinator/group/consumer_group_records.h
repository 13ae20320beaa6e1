#pragma once
// The records of consumer groups (KIP-848) in __consumer_offsets, in Kafka's
// format, beside the classic ones (offsets_record_serde.h). The key version
// says which record it is:
//
//   3  ConsumerGroupMetadata           group            -> group epoch
//   4  ConsumerGroupPartitionMetadata  group            (read and ignored: the
//                                                        metadata is refreshed
//                                                        from the image on load)
//   5  ConsumerGroupMemberMetadata     group, member    -> subscriptions, client
//   6  ConsumerGroupTargetAssignmentMetadata  group     -> assignment epoch
//   7  ConsumerGroupTargetAssignmentMember    group, member -> target
//   8  ConsumerGroupCurrentMemberAssignment   group, member -> epochs, state,
//                                                        assigned, revoking
//
// Values are version 0, flexible. A group's records are written in one batch
// per heartbeat that changes them, so a coordinator that loads the partition
// finds each group as it was after some heartbeat.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "coordinator/common/coordinator_runtime.h"
#include "coordinator/group/consumer_group_member.h"

namespace samsa::coordinator {

inline constexpr int16_t consumer_group_metadata_key_version = 3;
inline constexpr int16_t consumer_group_partition_metadata_key_version = 4;
inline constexpr int16_t consumer_group_member_metadata_key_version = 5;
inline constexpr int16_t consumer_group_target_metadata_key_version = 6;
inline constexpr int16_t consumer_group_target_member_key_version = 7;
inline constexpr int16_t consumer_group_current_assignment_key_version = 8;

coordinator_record consumer_group_epoch_record(const std::string& group_id, int32_t epoch);
coordinator_record consumer_group_member_record(const std::string& group_id,
                                                const consumer_group_member& m);
coordinator_record consumer_group_target_epoch_record(const std::string& group_id, int32_t epoch);
coordinator_record consumer_group_target_member_record(const std::string& group_id,
                                                       const std::string& member_id,
                                                       const topic_assignment& target);
coordinator_record consumer_group_current_assignment_record(const std::string& group_id,
                                                            const consumer_group_member& m);
// A member's three records, tombstoned (it left or was fenced).
std::vector<coordinator_record> consumer_group_member_tombstones(const std::string& group_id,
                                                                 const std::string& member_id);
// The group's own records, tombstoned (deleted, or converted to classic).
std::vector<coordinator_record> consumer_group_tombstones(const std::string& group_id);

// What one consumer group record says, for the loader.
struct consumer_group_record {
    int16_t key_version = 0;
    std::string group_id;
    std::string member_id;  // member records only
    bool tombstone = false;
    int32_t epoch = 0;             // 3, 6
    consumer_group_member member;  // 5 (subscriptions), 8 (assignment)
    topic_assignment target;       // 7
};

// Decodes a record whose key version is 3..8; CORRUPT_MESSAGE when the key
// or the value does not parse.
result<consumer_group_record> decode_consumer_group_record(int16_t key_version, bytes_view key,
                                                           const std::optional<bytes_view>& value);

}  // namespace samsa::coordinator
