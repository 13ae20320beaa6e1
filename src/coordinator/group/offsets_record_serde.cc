#include "coordinator/group/offsets_record_serde.h"

#include <algorithm>

#include "coordinator/common/versioned_record.h"
#include "coordinator/group/classic_group.h"
#include "protocol/generated/group_metadata_key.h"
#include "protocol/generated/offset_commit_key.h"
#include "protocol/generated/offset_commit_value.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace samsa::coordinator {

bytes encode_offset_commit_key(const std::string& group, const storage::topic_partition& tp) {
    protocol::offset_commit_key k;
    k.group = group;
    k.topic = tp.topic;
    k.partition = tp.partition;
    return encode_versioned(k, offset_commit_key_version);
}

bytes encode_offset_commit_value(const offset_and_metadata& om) {
    protocol::offset_commit_value v;
    v.offset = om.offset;
    v.leader_epoch = om.leader_epoch;
    v.metadata = om.metadata;
    v.commit_timestamp = om.commit_timestamp_ms;
    v.expire_timestamp = om.expire_timestamp_ms.value_or(-1);
    return encode_versioned(v, om.expire_timestamp_ms ? offset_commit_value_version_with_expiry
                                                      : offset_commit_value_version);
}

bytes encode_group_metadata_key(const std::string& group) {
    protocol::group_metadata_key k;
    k.group = group;
    return encode_versioned(k, group_metadata_key_version);
}

bytes encode_group_metadata_value(const classic_group& group,
                                  const std::map<std::string, bytes>& assignments) {
    protocol::group_metadata_value v;
    v.protocol_type = group.protocol_type().value_or("");
    v.generation = group.generation_id();
    v.protocol = group.protocol_name();
    v.leader = group.leader_id();
    v.current_state_timestamp = group.current_state_timestamp().value_or(-1);
    for (const auto& [id, m] : group.members()) {
        auto& out = v.members.emplace_back();
        out.member_id = id;
        out.group_instance_id = m->group_instance_id();
        out.client_id = m->client_id();
        out.client_host = m->client_host();
        out.rebalance_timeout = m->rebalance_timeout_ms();
        out.session_timeout = m->session_timeout_ms();
        if (group.protocol_name()) {
            if (const bytes* md = m->metadata(*group.protocol_name())) {
                out.subscription = *md;
            }
        }
        auto a = assignments.find(id);
        out.assignment = a != assignments.end() ? a->second : m->assignment();
    }
    return encode_versioned(v, group_metadata_value_version);
}

result<offsets_record_key> decode_offsets_record_key(bytes_view key) {
    protocol::reader r(key);
    int16_t version = r.read_int16();
    if (!r.ok()) {
        return error(error_code::corrupt_message, "__consumer_offsets key shorter than a version");
    }
    if (version == 0 || version == 1) {
        auto k = decode_rest<protocol::offset_commit_key>(r, version, "OffsetCommitKey");
        if (!k) {
            return k.err();
        }
        return offsets_record_key(offset_commit_key{k->group, {k->topic, k->partition}});
    }
    if (version == 2) {
        auto k = decode_rest<protocol::group_metadata_key>(r, version, "GroupMetadataKey");
        if (!k) {
            return k.err();
        }
        return offsets_record_key(group_metadata_key{k->group});
    }
    return offsets_record_key(unknown_key{version});
}

result<offset_and_metadata> decode_offset_commit_value(bytes_view value) {
    protocol::reader r(value);
    int16_t version = r.read_int16();
    if (!r.ok() || version < 0) {
        return error(error_code::corrupt_message, "bad OffsetCommitValue version");
    }
    // Kafka reads a value newer than it knows with the highest version it
    // knows (new fields are tagged): only trailing bytes may be left then.
    const int16_t known = std::min<int16_t>(version, protocol::offset_commit_value::max_version);
    protocol::offset_commit_value v;
    v.decode(r, known);
    if (!r.ok() || (known == version && r.remaining() != 0)) {
        return error(error_code::corrupt_message,
                     "malformed OffsetCommitValue version " + std::to_string(version));
    }
    offset_and_metadata om;
    om.offset = v.offset;
    om.leader_epoch = version >= 3 ? v.leader_epoch : -1;
    om.metadata = std::move(v.metadata);
    om.commit_timestamp_ms = v.commit_timestamp;
    if (version == 1 && v.expire_timestamp != -1) {
        om.expire_timestamp_ms = v.expire_timestamp;
    }
    return om;
}

result<protocol::group_metadata_value> decode_group_metadata_value(bytes_view value) {
    protocol::reader r(value);
    int16_t version = r.read_int16();
    if (!r.ok() || version < 0) {
        return error(error_code::corrupt_message, "bad GroupMetadataValue version");
    }
    const int16_t known = std::min<int16_t>(version, protocol::group_metadata_value::max_version);
    protocol::group_metadata_value v;
    v.decode(r, known);
    if (!r.ok() || (known == version && r.remaining() != 0)) {
        return error(error_code::corrupt_message,
                     "malformed GroupMetadataValue version " + std::to_string(version));
    }
    return v;
}

}  // namespace samsa::coordinator
