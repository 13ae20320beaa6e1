#pragma once
// Control records: the records of a control batch (attributes bit 5), which
// carry markers rather than user data. Each has a key and, for transaction
// markers, a value (Kafka's ControlRecordType and EndTransactionMarker):
//
//   key:   int16 version (0), int16 type
//   value of an ABORT/COMMIT marker: int16 version (0), int32 coordinator_epoch
//
// Types 2-6 belong to the KRaft metadata log. Newer key/value versions are read
// as version 0, as Kafka does, so a newer writer's extra fields are ignored.
#include <cstdint>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_header.h"
#include "record/record.h"

namespace samsa::record {

enum class control_record_type : int16_t {
    unknown = -1,
    abort = 0,
    commit = 1,
    leader_change = 2,
    snapshot_header = 3,
    snapshot_footer = 4,
    kraft_version = 5,
    kraft_voters = 6,
};

inline constexpr size_t control_record_key_size = 4;
inline constexpr size_t end_txn_marker_value_size = 6;

// The type in a control record key; a type Kafka does not know is `unknown`.
// INVALID_RECORD when the key is null or shorter than 4 bytes.
result<control_record_type> parse_control_record_key(const std::optional<bytes_view>& key);
bytes encode_control_record_key(control_record_type type);

struct end_txn_marker {
    bool commit = false;
    int32_t coordinator_epoch = 0;
};

// The marker in a control record; INVALID_RECORD when the key is not ABORT or
// COMMIT or the value is null or shorter than 6 bytes.
result<end_txn_marker> parse_end_txn_marker(const record& r);
bytes encode_end_txn_marker_value(int32_t coordinator_epoch);

// The control batch a transaction coordinator writes to end a transaction:
// transactional + control, one marker record, no sequence.
bytes build_end_txn_marker_batch(int64_t producer_id, int16_t producer_epoch,
                                 const end_txn_marker& marker, int64_t timestamp,
                                 int32_t partition_leader_epoch = no_partition_leader_epoch);

}  // namespace samsa::record
