#pragma once
// The consumer's embedded protocol: what a classic member's JoinGroup
// metadata (ConsumerProtocolSubscription) and SyncGroup assignment
// (ConsumerProtocolAssignment) carry, each an int16 version followed by the
// struct. The coordinator reads and writes them itself when a classic member
// is in a consumer group, and when a group converts between the two
// protocols (KIP-848's online migration).
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/bytes.h"
#include "common/uuid.h"
#include "coordinator/group/consumer_group_member.h"
#include "protocol/generated/consumer_protocol_assignment.h"
#include "protocol/generated/consumer_protocol_subscription.h"

namespace samsa::coordinator {

// The version a subscription or assignment starts with; nullopt when it has
// none.
std::optional<int16_t> consumer_protocol_version(bytes_view data);

// A newer version than we know starts with the fields we know (they only
// append), so it is read as our newest. nullopt when it does not parse.
std::optional<protocol::consumer_protocol_subscription> decode_consumer_subscription(
    bytes_view data);
std::optional<protocol::consumer_protocol_assignment> decode_consumer_assignment(bytes_view data);

// `assigned` in ConsumerProtocolAssignment `version` (clamped to the versions
// we know, as Kafka's serializeAssignment does); topics `names` cannot name
// (deleted meanwhile) are left out.
bytes encode_consumer_assignment(const topic_assignment& assigned,
                                 const std::map<uuid, std::string>& names, int16_t version);

// Partitions by topic name, as the embedded protocol carries them, to
// partitions by topic id; topics `ids` does not know are left out.
template <typename TopicPartitions, typename IdOf>
topic_assignment to_topic_assignment(const TopicPartitions& tps, const IdOf& id_of) {
    topic_assignment out;
    for (const auto& tp : tps) {
        if (auto id = id_of(tp.topic)) {
            out[*id].insert(tp.partitions.begin(), tp.partitions.end());
        }
    }
    return out;
}

}  // namespace samsa::coordinator
