#pragma once
// Metadata records as they are stored in `__cluster_metadata-0` (Kafka's
// MetadataRecordSerde / AbstractApiMessageSerde). Each record of a v2 batch has
// a null key and this value:
//
//   uvarint  frame version    always 1 (DEFAULT_FRAME_VERSION)
//   uvarint  record type      the schema's apiKey (TopicRecord = 2, ...)
//   uvarint  record version   the schema version the body is written in
//   bytes    body             the record in that version (flexible encoding)
//
// Example, TopicRecord v0 {name "foo", topic id U}:
//   01 02 00 | 04 'f' 'o' 'o' | <16 bytes of U> | 00 (no tagged fields)
//
// metadata_record holds the record types Samsa writes and replays. Decoding
// refuses another frame version, an unknown record type, a version outside the
// schema's range and trailing bytes (CORRUPT_MESSAGE): a metadata log we cannot
// read whole must not be half applied.
#include <cstdint>
#include <variant>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "protocol/generated/access_control_entry_record.h"
#include "protocol/generated/broker_registration_change_record.h"
#include "protocol/generated/client_quota_record.h"
#include "protocol/generated/config_record.h"
#include "protocol/generated/feature_level_record.h"
#include "protocol/generated/fence_broker_record.h"
#include "protocol/generated/no_op_record.h"
#include "protocol/generated/partition_change_record.h"
#include "protocol/generated/partition_record.h"
#include "protocol/generated/producer_ids_record.h"
#include "protocol/generated/register_broker_record.h"
#include "protocol/generated/remove_access_control_entry_record.h"
#include "protocol/generated/remove_topic_record.h"
#include "protocol/generated/remove_user_scram_credential_record.h"
#include "protocol/generated/topic_record.h"
#include "protocol/generated/unfence_broker_record.h"
#include "protocol/generated/unregister_broker_record.h"
#include "protocol/generated/user_scram_credential_record.h"

namespace samsa::metadata {

inline constexpr uint32_t metadata_frame_version = 1;

using metadata_record = std::variant<
    protocol::register_broker_record, protocol::unregister_broker_record, protocol::topic_record,
    protocol::partition_record, protocol::config_record, protocol::partition_change_record,
    protocol::fence_broker_record, protocol::unfence_broker_record, protocol::remove_topic_record,
    protocol::feature_level_record, protocol::producer_ids_record,
    protocol::broker_registration_change_record, protocol::no_op_record,
    protocol::user_scram_credential_record, protocol::remove_user_scram_credential_record,
    protocol::access_control_entry_record, protocol::remove_access_control_entry_record,
    protocol::client_quota_record>;

// Kafka's ConfigResource.Type ids, as ConfigRecord and the config APIs carry them.
enum class config_resource_type : int8_t {
    unknown = 0,
    topic = 2,
    broker = 4,
    broker_logger = 8,
    client_metrics = 16,
    group = 32,  // KIP-848's GroupConfig
};

// The metadata.version feature level whose record versions Samsa writes
// (3.6-IV2): RegisterBrokerRecord v2, PartitionRecord and PartitionChangeRecord
// v0 (no directories, no ELR), every other record v0.
inline constexpr int16_t written_metadata_version = 14;
inline constexpr const char* metadata_version_feature = "metadata.version";

// The record type (schema apiKey) and the version Samsa writes it in.
int16_t record_type(const metadata_record& r);
int16_t written_version(const metadata_record& r);

// The record value (frame) in the written version.
bytes encode_metadata_record(const metadata_record& r);
// The frame with an explicit version (tests, and reading what Kafka wrote).
bytes encode_metadata_record(const metadata_record& r, int16_t version);
result<metadata_record> decode_metadata_record(bytes_view value);

}  // namespace samsa::metadata
