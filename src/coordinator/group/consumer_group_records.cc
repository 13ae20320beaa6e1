#include "coordinator/group/consumer_group_records.h"

#include <algorithm>

#include "coordinator/common/versioned_record.h"
#include "protocol/generated/consumer_group_current_member_assignment_key.h"
#include "protocol/generated/consumer_group_current_member_assignment_value.h"
#include "protocol/generated/consumer_group_member_metadata_key.h"
#include "protocol/generated/consumer_group_member_metadata_value.h"
#include "protocol/generated/consumer_group_metadata_key.h"
#include "protocol/generated/consumer_group_metadata_value.h"
#include "protocol/generated/consumer_group_partition_metadata_key.h"
#include "protocol/generated/consumer_group_target_assignment_member_key.h"
#include "protocol/generated/consumer_group_target_assignment_member_value.h"
#include "protocol/generated/consumer_group_target_assignment_metadata_key.h"
#include "protocol/generated/consumer_group_target_assignment_metadata_value.h"

namespace samsa::coordinator {

namespace {

template <typename Key>
bytes group_key(const std::string& group_id, int16_t version) {
    Key k;
    k.group_id = group_id;
    return encode_versioned(k, version);
}

template <typename Key>
bytes member_key(const std::string& group_id, const std::string& member_id, int16_t version) {
    Key k;
    k.group_id = group_id;
    k.member_id = member_id;
    return encode_versioned(k, version);
}

template <typename Out>
std::vector<Out> to_wire(const topic_assignment& a) {
    std::vector<Out> out;
    for (const auto& [topic, parts] : a) {
        if (parts.empty()) {
            continue;
        }
        auto& t = out.emplace_back();
        t.topic_id = topic;
        t.partitions.assign(parts.begin(), parts.end());
    }
    return out;
}

template <typename In>
topic_assignment from_wire(const std::vector<In>& in) {
    topic_assignment out;
    for (const auto& t : in) {
        // A topic without partitions assigns nothing (and is not written).
        if (!t.partitions.empty()) {
            out[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
        }
    }
    return out;
}

// A value of a newer version is read with the newest we know (new fields
// are tagged), as Kafka does.
template <typename Value>
result<Value> decode_value(bytes_view value, const char* what) {
    protocol::reader r(value);
    const int16_t version = r.read_int16();
    if (!r.ok() || version < 0) {
        return error(error_code::corrupt_message, std::string("bad ") + what + " version");
    }
    const int16_t known = std::min<int16_t>(version, Value::max_version);
    Value v;
    v.decode(r, known);
    if (!r.ok() || (known == version && r.remaining() != 0)) {
        return error(error_code::corrupt_message, std::string("malformed ") + what);
    }
    return v;
}

template <typename Key>
result<Key> decode_key(bytes_view key, int16_t version, const char* what) {
    protocol::reader r(key);
    (void)r.read_int16();
    return decode_rest<Key>(r, version, what);
}

// KIP-1251: the assignment epochs of a member's partitions, in the order of
// each topic's partitions; one it has none for (a record written before the
// member had one) gets its member epoch.
template <typename Topics>
void add_assignment_epochs(Topics& topics, const consumer_group_member& m) {
    const int32_t fallback = std::max(m.member_epoch, 0);
    for (auto& t : topics) {
        auto& epochs = t.assignment_epochs.emplace();
        for (int32_t p : t.partitions) {
            epochs.push_back(m.assignment_epoch_of(t.topic_id, p).value_or(fallback));
        }
    }
}

// The epochs a record gives its partitions. A record of a Kafka before 4.3
// has none, nor may a damaged one have as many as partitions: such a topic's
// partitions get the member epoch (at least 0), as Kafka reads them.
template <typename Topics>
void read_assignment_epochs(const Topics& topics, consumer_group_member& m) {
    const int32_t fallback = std::max(m.member_epoch, 0);
    for (const auto& t : topics) {
        const bool aligned =
            t.assignment_epochs && t.assignment_epochs->size() == t.partitions.size();
        for (size_t i = 0; i < t.partitions.size(); ++i) {
            m.assignment_epochs[{t.topic_id, t.partitions[i]}] =
                aligned ? (*t.assignment_epochs)[i] : fallback;
        }
    }
}

}  // namespace

coordinator_record consumer_group_epoch_record(const std::string& group_id, int32_t epoch) {
    protocol::consumer_group_metadata_value v;
    v.epoch = epoch;
    return {group_key<protocol::consumer_group_metadata_key>(group_id,
                                                             consumer_group_metadata_key_version),
            encode_versioned(v, 0)};
}

coordinator_record consumer_group_member_record(const std::string& group_id,
                                                const consumer_group_member& m) {
    protocol::consumer_group_member_metadata_value v;
    v.instance_id = m.instance_id;
    v.rack_id = m.rack_id;
    v.client_id = m.client_id;
    v.client_host = m.client_host;
    v.subscribed_topic_names = m.subscribed_topic_names;
    v.subscribed_topic_regex = m.subscribed_topic_regex;
    v.rebalance_timeout_ms = m.rebalance_timeout_ms;
    v.server_assignor = m.server_assignor;
    if (m.classic) {
        protocol::consumer_group_member_metadata_value::classic_member_metadata_data c;
        c.session_timeout_ms = m.classic->session_timeout_ms;
        for (const auto& p : m.classic->supported_protocols) {
            c.supported_protocols.push_back({p.name, p.metadata, {}});
        }
        v.classic_member_metadata = std::move(c);
    }
    return {member_key<protocol::consumer_group_member_metadata_key>(
                group_id, m.member_id, consumer_group_member_metadata_key_version),
            encode_versioned(v, 0)};
}

coordinator_record consumer_group_target_epoch_record(const std::string& group_id, int32_t epoch) {
    protocol::consumer_group_target_assignment_metadata_value v;
    v.assignment_epoch = epoch;
    return {group_key<protocol::consumer_group_target_assignment_metadata_key>(
                group_id, consumer_group_target_metadata_key_version),
            encode_versioned(v, 0)};
}

coordinator_record consumer_group_target_member_record(const std::string& group_id,
                                                       const std::string& member_id,
                                                       const topic_assignment& target) {
    protocol::consumer_group_target_assignment_member_value v;
    v.topic_partitions =
        to_wire<protocol::consumer_group_target_assignment_member_value::topic_partition>(target);
    return {member_key<protocol::consumer_group_target_assignment_member_key>(
                group_id, member_id, consumer_group_target_member_key_version),
            encode_versioned(v, 0)};
}

coordinator_record consumer_group_current_assignment_record(const std::string& group_id,
                                                            const consumer_group_member& m) {
    using value = protocol::consumer_group_current_member_assignment_value;
    value v;
    v.member_epoch = m.member_epoch;
    v.previous_member_epoch = m.previous_member_epoch;
    v.state = int8_t(m.state);
    v.assigned_partitions = to_wire<value::topic_partitions>(m.assigned);
    v.partitions_pending_revocation = to_wire<value::topic_partitions>(m.pending_revocation);
    add_assignment_epochs(v.assigned_partitions, m);
    add_assignment_epochs(v.partitions_pending_revocation, m);
    return {member_key<protocol::consumer_group_current_member_assignment_key>(
                group_id, m.member_id, consumer_group_current_assignment_key_version),
            encode_versioned(v, 0)};
}

std::vector<coordinator_record> consumer_group_member_tombstones(const std::string& group_id,
                                                                 const std::string& member_id) {
    return {
        {member_key<protocol::consumer_group_current_member_assignment_key>(
             group_id, member_id, consumer_group_current_assignment_key_version),
         std::nullopt},
        {member_key<protocol::consumer_group_target_assignment_member_key>(
             group_id, member_id, consumer_group_target_member_key_version),
         std::nullopt},
        {member_key<protocol::consumer_group_member_metadata_key>(
             group_id, member_id, consumer_group_member_metadata_key_version),
         std::nullopt},
    };
}

std::vector<coordinator_record> consumer_group_tombstones(const std::string& group_id) {
    return {
        {group_key<protocol::consumer_group_target_assignment_metadata_key>(
             group_id, consumer_group_target_metadata_key_version),
         std::nullopt},
        {group_key<protocol::consumer_group_partition_metadata_key>(
             group_id, consumer_group_partition_metadata_key_version),
         std::nullopt},
        {group_key<protocol::consumer_group_metadata_key>(group_id,
                                                          consumer_group_metadata_key_version),
         std::nullopt},
    };
}

result<consumer_group_record> decode_consumer_group_record(int16_t key_version, bytes_view key,
                                                           const std::optional<bytes_view>& value) {
    consumer_group_record out;
    out.key_version = key_version;
    out.tombstone = !value.has_value();
    switch (key_version) {
        case consumer_group_metadata_key_version: {
            auto k = decode_key<protocol::consumer_group_metadata_key>(key, key_version,
                                                                       "ConsumerGroupMetadataKey");
            if (!k) {
                return k.err();
            }
            out.group_id = std::move(k->group_id);
            if (value) {
                auto v = decode_value<protocol::consumer_group_metadata_value>(
                    *value, "ConsumerGroupMetadataValue");
                if (!v) {
                    return v.err();
                }
                out.epoch = v->epoch;
            }
            return out;
        }
        case consumer_group_partition_metadata_key_version: {
            auto k = decode_key<protocol::consumer_group_partition_metadata_key>(
                key, key_version, "ConsumerGroupPartitionMetadataKey");
            if (!k) {
                return k.err();
            }
            out.group_id = std::move(k->group_id);
            return out;
        }
        case consumer_group_member_metadata_key_version: {
            auto k = decode_key<protocol::consumer_group_member_metadata_key>(
                key, key_version, "ConsumerGroupMemberMetadataKey");
            if (!k) {
                return k.err();
            }
            out.group_id = std::move(k->group_id);
            out.member_id = std::move(k->member_id);
            if (value) {
                auto v = decode_value<protocol::consumer_group_member_metadata_value>(
                    *value, "ConsumerGroupMemberMetadataValue");
                if (!v) {
                    return v.err();
                }
                out.member.instance_id = v->instance_id;
                out.member.rack_id = v->rack_id;
                out.member.client_id = v->client_id;
                out.member.client_host = v->client_host;
                out.member.subscribed_topic_names = v->subscribed_topic_names;
                out.member.subscribed_topic_regex = v->subscribed_topic_regex;
                out.member.rebalance_timeout_ms = v->rebalance_timeout_ms;
                out.member.server_assignor = v->server_assignor;
                if (v->classic_member_metadata) {
                    auto& c = out.member.classic.emplace();
                    c.session_timeout_ms = v->classic_member_metadata->session_timeout_ms;
                    for (auto& p : v->classic_member_metadata->supported_protocols) {
                        c.supported_protocols.push_back({std::move(p.name), std::move(p.metadata)});
                    }
                }
            }
            return out;
        }
        case consumer_group_target_metadata_key_version: {
            auto k = decode_key<protocol::consumer_group_target_assignment_metadata_key>(
                key, key_version, "ConsumerGroupTargetAssignmentMetadataKey");
            if (!k) {
                return k.err();
            }
            out.group_id = std::move(k->group_id);
            if (value) {
                auto v = decode_value<protocol::consumer_group_target_assignment_metadata_value>(
                    *value, "ConsumerGroupTargetAssignmentMetadataValue");
                if (!v) {
                    return v.err();
                }
                out.epoch = v->assignment_epoch;
            }
            return out;
        }
        case consumer_group_target_member_key_version: {
            auto k = decode_key<protocol::consumer_group_target_assignment_member_key>(
                key, key_version, "ConsumerGroupTargetAssignmentMemberKey");
            if (!k) {
                return k.err();
            }
            out.group_id = std::move(k->group_id);
            out.member_id = std::move(k->member_id);
            if (value) {
                auto v = decode_value<protocol::consumer_group_target_assignment_member_value>(
                    *value, "ConsumerGroupTargetAssignmentMemberValue");
                if (!v) {
                    return v.err();
                }
                out.target = from_wire(v->topic_partitions);
            }
            return out;
        }
        case consumer_group_current_assignment_key_version: {
            auto k = decode_key<protocol::consumer_group_current_member_assignment_key>(
                key, key_version, "ConsumerGroupCurrentMemberAssignmentKey");
            if (!k) {
                return k.err();
            }
            out.group_id = std::move(k->group_id);
            out.member_id = std::move(k->member_id);
            if (value) {
                auto v = decode_value<protocol::consumer_group_current_member_assignment_value>(
                    *value, "ConsumerGroupCurrentMemberAssignmentValue");
                if (!v) {
                    return v.err();
                }
                out.member.member_epoch = v->member_epoch;
                out.member.previous_member_epoch = v->previous_member_epoch;
                out.member.state = member_state(v->state);
                if (v->state < -1 || v->state > 2) {
                    out.member.state = member_state::unknown;
                }
                out.member.assigned = from_wire(v->assigned_partitions);
                out.member.pending_revocation = from_wire(v->partitions_pending_revocation);
                read_assignment_epochs(v->assigned_partitions, out.member);
                read_assignment_epochs(v->partitions_pending_revocation, out.member);
            }
            return out;
        }
        default:
            return error(error_code::corrupt_message,
                         "not a consumer group record: key version " + std::to_string(key_version));
    }
}

}  // namespace samsa::coordinator
