#pragma once
// Building v2 record batches (layout: record/batch_header.h, record/record.h),
// and the in-place rewrites the broker makes to batches it appends.
//
// Builder rules follow Kafka's MemoryRecordsBuilder: base_timestamp is the first
// record's timestamp (or the delete horizon when one is set), every record's
// timestamp is written as a delta from it, offset deltas count 0, 1, 2, ...
// unless given, max_timestamp is the largest record timestamp (CreateTime) or
// the log append time (LogAppendTime), and the CRC32C covers attributes to the
// end. Records are encoded when added, so the views in a record_input need
// only live for the add() call.
//
// In-place rewrites: the broker assigns base_offset and partition_leader_epoch,
// which lie outside the CRC (stamp_base_offset_and_epoch never recomputes it),
// and, for LogAppendTime topics, max_timestamp and the timestamp-type bit, which
// lie inside it (set_max_timestamp recomputes it).
#include <cstdint>
#include <optional>
#include <span>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_header.h"
#include "record/compression.h"
#include "record/record.h"

namespace samsa::record {

struct batch_options {
    int64_t base_offset = 0;
    int32_t partition_leader_epoch = no_partition_leader_epoch;
    compression codec = compression::none;
    std::optional<int> compression_level;  // the codec's Kafka default when absent
    samsa::record::timestamp_type timestamp_type = timestamp_type::create_time;
    int64_t log_append_time = no_timestamp;  // max_timestamp of a LogAppendTime batch
    int64_t producer_id = no_producer_id;
    int16_t producer_epoch = no_producer_epoch;
    int32_t base_sequence = no_sequence;
    bool transactional = false;
    bool control = false;
    // Compaction: sets attributes bit 6 and makes this the base timestamp.
    std::optional<int64_t> delete_horizon;
    // Written as last_offset_delta; by default the last record's offset delta
    // (0 for an empty batch). The cleaner keeps a batch's original value.
    std::optional<int32_t> last_offset_delta;
};

struct record_input {
    int64_t timestamp = no_timestamp;
    std::optional<bytes_view> key;
    std::optional<bytes_view> value;
    std::span<const record_header> headers = {};
    // Default: one more than the previous record's (0 for the first).
    std::optional<int32_t> offset_delta;
};

class batch_builder {
  public:
    explicit batch_builder(batch_options options = {});

    batch_builder& add(const record_input& r);
    batch_builder& add(int64_t timestamp, std::optional<bytes_view> key,
                       std::optional<bytes_view> value,
                       std::span<const record_header> headers = {}) {
        return add(record_input{timestamp, key, value, headers, std::nullopt});
    }

    int32_t records_count() const { return _count; }
    // Bytes of encoded (uncompressed) records so far, header excluded.
    size_t records_size() const { return _records.size(); }

    // The finished batch. Fails only when compression fails (a bad level is
    // INVALID_CONFIG, codec 5-7 UNSUPPORTED_COMPRESSION_TYPE) or the batch would
    // not fit a batch_length (MESSAGE_TOO_LARGE).
    result<bytes> build() const;

  private:
    batch_options _options;
    bytes _records;
    int32_t _count = 0;
    int32_t _next_offset_delta = 0;
    int64_t _base_timestamp = no_timestamp;
    int64_t _max_timestamp = no_timestamp;
    bool _has_base_timestamp = false;
};

// Sets max_timestamp and the timestamp-type bit and recomputes the CRC, leaving
// the batch untouched when both already hold those values (as Kafka does).
// CORRUPT_MESSAGE when `batch` is not a whole v2 batch.
status set_max_timestamp(std::span<uint8_t> batch, timestamp_type type, int64_t max_timestamp);

// LogAppendTime stamping: set_max_timestamp(batch, log_append_time, ts).
status set_log_append_time(std::span<uint8_t> batch, int64_t timestamp);

// Writes base_offset and partition_leader_epoch; the CRC stays valid because
// neither field is covered by it. CORRUPT_MESSAGE when shorter than a header.
status stamp_base_offset_and_epoch(std::span<uint8_t> batch, int64_t base_offset,
                                   int32_t partition_leader_epoch);

// The same batch with its records region recompressed with `codec`
// (compression.type of the topic differing from the producer's), length and
// CRC recomputed. Errors as record_iterator::open and compress.
result<bytes> recompress_batch(bytes_view batch, compression codec, std::optional<int> level = {},
                               size_t max_uncompressed_bytes = default_max_uncompressed_bytes);

}  // namespace samsa::record
