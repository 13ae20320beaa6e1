#pragma once
// The records of __consumer_offsets, in Kafka's format (so a Kafka broker
// and Kafka's tools read our topic, and we read theirs). Every record has a
// key and, unless it is a tombstone, a value; each starts with an int16
// version that says which schema follows:
//
//   key version 0, 1   OffsetCommitKey      group, topic, partition
//   key version 2      GroupMetadataKey     group
//   key version 3+     KIP-848 / share group records: not ours, skipped
//
//   OffsetCommitValue  v0 offset, metadata, commit_timestamp
//                      v1 + expire_timestamp (only when the commit had a
//                         retention time: OffsetCommit v2-v4)
//                      v3 offset, leader_epoch, metadata, commit_timestamp
//                      (v2 without leader_epoch; v4 is v3 with tagged fields)
//   GroupMetadataValue v3 protocol_type, generation, protocol (nullable),
//                      leader (nullable), current_state_timestamp, members:
//                      member_id, group_instance_id (nullable), client_id,
//                      client_host, rebalance_timeout, session_timeout,
//                      subscription (bytes), assignment (bytes)
//
// What we write is what Kafka 2.3+ writes (MetadataVersion's
// offsetCommitValueVersion / groupMetadataValueVersion): key version 1 for
// offsets, 2 for groups; OffsetCommitValue v3 (v1 with an expire timestamp);
// GroupMetadataValue v3. A null value is a tombstone: compaction then drops
// the key. Strings are int16-length UTF-8, bytes int32-length, as in the
// non-flexible protocol.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "common/bytes.h"
#include "common/result.h"
#include "coordinator/group/group_offsets.h"
#include "protocol/generated/group_metadata_value.h"
#include "storage/topic_partition.h"

namespace samsa::coordinator {

class classic_group;

inline constexpr int16_t offset_commit_key_version = 1;
inline constexpr int16_t group_metadata_key_version = 2;
inline constexpr int16_t offset_commit_value_version = 3;
inline constexpr int16_t offset_commit_value_version_with_expiry = 1;
inline constexpr int16_t group_metadata_value_version = 3;

bytes encode_offset_commit_key(const std::string& group, const storage::topic_partition& tp);
bytes encode_offset_commit_value(const offset_and_metadata& om);
bytes encode_group_metadata_key(const std::string& group);
// The group as stored after a rebalance: each member's subscription is its
// metadata for the chosen protocol; `assignments` (member id -> assignment)
// replaces the members' current assignments where given.
bytes encode_group_metadata_value(const classic_group& group,
                                  const std::map<std::string, bytes>& assignments);

struct offset_commit_key {
    std::string group;
    storage::topic_partition tp;
};
struct group_metadata_key {
    std::string group;
};
struct unknown_key {
    int16_t version = -1;
};
using offsets_record_key = std::variant<offset_commit_key, group_metadata_key, unknown_key>;

// CORRUPT_MESSAGE when the key does not parse as its version says.
result<offsets_record_key> decode_offsets_record_key(bytes_view key);
result<offset_and_metadata> decode_offset_commit_value(bytes_view value);
result<protocol::group_metadata_value> decode_group_metadata_value(bytes_view value);

}  // namespace samsa::coordinator
