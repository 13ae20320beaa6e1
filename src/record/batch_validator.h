#pragma once
// Validation of record batches before they are appended, with the rules and
// error codes of Kafka's broker (ProduceRequest.validateRecords,
// UnifiedLog.analyzeAndValidateRecords, LogValidator). In the order Kafka
// applies them:
//
//  validate_produce_records (the `records` of one partition in a Produce):
//   * produce v3+: at least one whole batch (INVALID_RECORD), magic 2
//     (INVALID_RECORD), zstd only from v7 (UNSUPPORTED_COMPRESSION_TYPE),
//     exactly one batch (INVALID_RECORD). A length below 14 or a magic above 2
//     is CORRUPT_MESSAGE. Bytes after the batch too short to be another batch are
//     ignored: Kafka trims them (UnifiedLog.trimInvalidBytes).
//   * produce v0-v2 may carry magic 0/1 message sets (record/legacy_message_set.h).
//
//  validate_batch (one v2 batch):
//   1. structure: a header, magic 2, batch_length matching the bytes (CORRUPT_MESSAGE)
//   2. client appends: base_offset 0 (INVALID_RECORD)
//   3. size over max.message.bytes (MESSAGE_TOO_LARGE; not for replication)
//   4. CRC32C over [21, end) (CORRUPT_MESSAGE)
//   5. codec 5-7 (UNSUPPORTED_COMPRESSION_TYPE)
//   6. client appends (LogValidator.validateBatch), all INVALID_RECORD:
//      last_offset_delta + 1 > 0, records_count > 0 and equal to it, no control
//      batches, a transactional batch needs a producer id, a producer id needs
//      base_sequence >= 0
//   7. records (not for replication, which Kafka does not re-validate): they
//      decode, exactly records_count of them fill the bytes (INVALID_RECORD;
//      CORRUPT_MESSAGE if they do not decompress within the bound); offset deltas
//      0..n-1 for clients, strictly increasing up to last_offset_delta otherwise;
//      control records carry a control key.
//   8. per record (LogValidator.validateRecord), collected for the whole batch
//      as ProduceResponse record_errors: a key on compacted topics
//      (INVALID_RECORD), and for CreateTime topics a timestamp (other than -1)
//      within [now - before.max.ms, now + after.max.ms]; a batch claiming
//      LogAppendTime is refused unless the topic is CreateTime and the record
//      has a timestamp, exactly as Kafka does. Any timestamp error makes the
//      batch INVALID_TIMESTAMP, else INVALID_RECORD.
//
// Deliberate difference from Kafka: Kafka rewrites (recompresses) a client
// batch whose offset deltas are not 0..n-1 instead of refusing it; no current
// client writes one, so Samsa refuses it with INVALID_RECORD.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_header.h"
#include "record/compression.h"

namespace samsa::record {

// Who is appending (Kafka's AppendOrigin). Clients get every check; the
// coordinators write control batches and offsets commits; followers only check
// what proves the bytes arrived intact.
enum class append_origin : uint8_t { client, coordinator, replication };

inline constexpr int32_t default_max_message_bytes = 1048588;  // max.message.bytes
inline constexpr int64_t no_timestamp_limit = std::numeric_limits<int64_t>::max();

struct timestamp_bounds {
    int64_t before_max_ms = no_timestamp_limit;
    int64_t after_max_ms = no_timestamp_limit;
};

// KIP-937: message.timestamp.before.max.ms and .after.max.ms each fall back to
// the deprecated message.timestamp.difference.max.ms while left at their
// default (Long.MAX_VALUE).
timestamp_bounds effective_timestamp_bounds(int64_t difference_max_ms, int64_t before_max_ms,
                                            int64_t after_max_ms);

struct validation_options {
    append_origin origin = append_origin::client;
    bool compacted = false;  // cleanup.policy includes compact
    int32_t max_message_bytes = default_max_message_bytes;
    timestamp_type message_timestamp_type = timestamp_type::create_time;
    timestamp_bounds timestamps;
    int64_t now_ms = 0;
    size_t max_uncompressed_bytes = default_max_uncompressed_bytes;
    std::string_view topic_partition;  // only for error messages, e.g. "orders-3"
};

// One rejected record of a batch (ProduceResponse v8+ record_errors).
struct record_error {
    int32_t batch_index = 0;
    std::string message;
};

// Record errors kept per batch; Kafka keeps them all, but a hostile batch of
// millions of bad records must not cost a message string each.
inline constexpr size_t max_record_errors = 1000;

struct batch_validation {
    samsa::error error{error_code::none};
    std::vector<record_error> record_errors;

    // When valid: the header, and the max timestamp the appended batch must
    // carry (the append time for LogAppendTime topics, else the largest record
    // timestamp) with the offset delta of its first record. Stamp it with
    // set_max_timestamp(batch, options.message_timestamp_type, max_timestamp);
    // that is a no-op when the batch already carries it. Replication leaves
    // these as the header says.
    batch_header header;
    int64_t max_timestamp = no_timestamp;
    int32_t offset_delta_of_max_timestamp = -1;

    bool ok() const { return error.code == error_code::none; }
    error_code code() const { return error.code; }
};

batch_validation validate_batch(bytes_view batch, const validation_options& options);

// Sizes, magic and CRC only: what log recovery and followers check.
status check_batch_integrity(bytes_view batch);

struct produce_records {
    int8_t magic = current_magic;
    // Magic 2: exactly the one batch. Magic 0/1: the whole message set. Empty
    // when a produce v0-v2 carried no bytes (Kafka appends nothing then).
    bytes_view data;
};

// ProduceRequest.validateRecords for one partition's `records`.
result<produce_records> validate_produce_records(bytes_view records, int16_t produce_version);

// The per-record rules of LogValidator.validateRecord, shared with the legacy
// (magic 0/1) path: collects record errors and yields the batch's error.
class record_rules {
  public:
    explicit record_rules(const validation_options& options) : _options(options) {}

    // `batch_log_append_time`: the batch claims LogAppendTime; `timestamp` is
    // the record's timestamp as the batch states it.
    void check(int32_t batch_index, bool has_key, int64_t timestamp, int64_t offset,
               bool batch_log_append_time);
    // A record refused for another reason (legacy inner messages: wrong magic,
    // nested compression); counts as INVALID_RECORD.
    void reject(int32_t batch_index, std::string message);
    bool failed() const { return _failed; }
    // Kafka's processRecordErrors: INVALID_TIMESTAMP if any timestamp failed,
    // else INVALID_RECORD, with the records' errors moved into `out`.
    samsa::error batch_error(std::vector<record_error>& out);

  private:
    const validation_options& _options;
    std::vector<record_error> _errors;
    size_t _count = 0;
    bool _failed = false;
    bool _timestamp_failed = false;
};

}  // namespace samsa::record
