#include "record/batch_validator.h"

#include <string>

#include "common/crc32c.h"
#include "record/batch_iterator.h"
#include "record/control_record.h"
#include "record/record.h"

namespace samsa::record {

namespace {

// Kafka's smallest legal entry length (a magic 0 message), below which the
// batch framing itself is corrupt.
constexpr int32_t min_entry_length = 14;
constexpr int16_t first_produce_version_v2_only = 3;
constexpr int16_t first_produce_version_with_zstd = 7;

std::string in_partition(const validation_options& o) {
    if (o.topic_partition.empty()) {
        return {};
    }
    return " in topic partition " + std::string(o.topic_partition);
}

batch_validation fail(error_code code, std::string message) {
    batch_validation v;
    v.error = error(code, std::move(message));
    return v;
}

int64_t wrapping_add(int64_t a, int64_t b) {
    return int64_t(uint64_t(a) + uint64_t(b));
}
int64_t wrapping_sub(int64_t a, int64_t b) {
    return int64_t(uint64_t(a) - uint64_t(b));
}

}  // namespace

timestamp_bounds effective_timestamp_bounds(int64_t difference_max_ms, int64_t before_max_ms,
                                            int64_t after_max_ms) {
    timestamp_bounds b;
    b.before_max_ms = before_max_ms != no_timestamp_limit ? before_max_ms : difference_max_ms;
    b.after_max_ms = after_max_ms != no_timestamp_limit ? after_max_ms : difference_max_ms;
    return b;
}

// ---- record_rules -------------------------------------------------------------

void record_rules::reject(int32_t batch_index, std::string message) {
    _failed = true;
    if (_count++ < max_record_errors) {
        _errors.push_back({batch_index, std::move(message)});
    }
}

void record_rules::check(int32_t batch_index, bool has_key, int64_t timestamp, int64_t offset,
                         bool batch_log_append_time) {
    if (_options.compacted && !has_key) {
        reject(batch_index,
               "Compacted topic cannot accept message without key" + in_partition(_options));
        return;
    }
    if (_options.message_timestamp_type == timestamp_type::create_time &&
        timestamp != no_timestamp) {
        // Compared as Kafka does, on the difference, with Java's wrapping longs.
        int64_t diff = wrapping_sub(_options.now_ms, timestamp);
        int64_t neg_diff = wrapping_sub(0, diff);
        if (diff > _options.timestamps.before_max_ms ||
            neg_diff > _options.timestamps.after_max_ms) {
            _timestamp_failed = true;
            reject(batch_index, "Timestamp " + std::to_string(timestamp) +
                                    " of message with offset " + std::to_string(offset) +
                                    " is out of range. The timestamp should be within [" +
                                    std::to_string(wrapping_sub(
                                        _options.now_ms, _options.timestamps.before_max_ms)) +
                                    ", " +
                                    std::to_string(wrapping_add(_options.now_ms,
                                                                _options.timestamps.after_max_ms)) +
                                    "]");
        }
    } else if (batch_log_append_time) {
        _timestamp_failed = true;
        reject(batch_index, "Invalid timestamp type in message with offset " +
                                std::to_string(offset) +
                                ". Producer should not set timestamp type to LogAppendTime.");
    }
}

error record_rules::batch_error(std::vector<record_error>& out) {
    if (!_failed) {
        return error(error_code::none);
    }
    std::string message;
    error_code code;
    if (_timestamp_failed) {
        code = error_code::invalid_timestamp;
        message = "One or more records have been rejected due to invalid timestamp";
    } else {
        code = error_code::invalid_record;
        message = "One or more records have been rejected due to " + std::to_string(_count) +
                  " record errors in total, and only showing the first three errors at most: [";
        for (size_t i = 0; i < _errors.size() && i < 3; ++i) {
            message += (i ? ", " : "") + std::string("RecordError(batchIndex=") +
                       std::to_string(_errors[i].batch_index) + ", message='" + _errors[i].message +
                       "')";
        }
        message += "]";
    }
    out = std::move(_errors);
    return error(code, std::move(message));
}

// ---- validate_batch -----------------------------------------------------------

status check_batch_integrity(bytes_view batch) {
    if (auto st = check_batch_structure(batch); !st) {
        return st;
    }
    batch_header h = decode_batch_header(batch.data());
    uint32_t computed = crc32c(batch.data() + attributes_offset, batch.size() - attributes_offset);
    if (computed != h.crc) {
        return error(error_code::corrupt_message,
                     "Record is corrupt (stored crc = " + std::to_string(h.crc) +
                         ", computed crc = " + std::to_string(computed) + ")");
    }
    return {};
}

namespace {

// Step 6: LogValidator.validateBatch for client appends.
status check_client_batch(const batch_header& h, const validation_options& o) {
    int64_t count_from_offsets = int64_t(h.last_offset_delta) + 1;
    std::string range =
        "[" + std::to_string(h.base_offset) + ", " + std::to_string(h.last_offset()) + "]";
    if (count_from_offsets <= 0) {
        return error(error_code::invalid_record,
                     "Batch has an invalid offset range: " + range + in_partition(o));
    }
    if (h.records_count <= 0) {
        return error(error_code::invalid_record,
                     "Invalid reported count for record batch: " + std::to_string(h.records_count) +
                         in_partition(o));
    }
    if (count_from_offsets != h.records_count) {
        return error(error_code::invalid_record,
                     "Inconsistent batch offset range " + range + " and count of records " +
                         std::to_string(h.records_count) + in_partition(o));
    }
    if (h.is_control()) {
        return error(error_code::invalid_record,
                     "Clients are not allowed to write control records" + in_partition(o));
    }
    // A transaction belongs to a producer: without one, no marker could ever
    // end it and read_committed consumers would stall behind it for good.
    if (h.is_transactional() && !h.has_producer_id()) {
        return error(error_code::invalid_record,
                     "Transactional record batch without a producer id" + in_partition(o));
    }
    if (h.has_producer_id() && h.base_sequence < 0) {
        return error(error_code::invalid_record,
                     "Invalid sequence number " + std::to_string(h.base_sequence) +
                         " in record batch with producerId " + std::to_string(h.producer_id) +
                         in_partition(o));
    }
    return {};
}

}  // namespace

batch_validation validate_batch(bytes_view batch, const validation_options& o) {
    // 1. Structure (everything below reads the header).
    if (auto st = check_batch_structure(batch); !st) {
        return fail(st.code(), st.err().message);
    }
    batch_header h = decode_batch_header(batch.data());
    // 2. Clients send base offset 0; the broker assigns the real one.
    if (o.origin == append_origin::client && h.base_offset != 0) {
        return fail(error_code::invalid_record, "The baseOffset of the record batch in the append" +
                                                    in_partition(o) + " should be 0, but it is " +
                                                    std::to_string(h.base_offset));
    }
    // 3. Size (followers accept whatever the leader accepted).
    if (o.origin != append_origin::replication && batch.size() > size_t(o.max_message_bytes)) {
        return fail(error_code::message_too_large,
                    "The record batch size in the append" + in_partition(o) + " is " +
                        std::to_string(batch.size()) +
                        " bytes which exceeds the maximum configured value of " +
                        std::to_string(o.max_message_bytes) + ".");
    }
    // 4. CRC.
    if (auto st = check_batch_integrity(batch); !st) {
        return fail(st.code(), st.err().message + in_partition(o));
    }
    // 5. Codec.
    if (auto c = compression_from_id(h.attributes & batch_attributes::compression_mask); !c) {
        return fail(c.code(), c.err().message);
    }
    batch_validation v;
    v.header = h;
    v.max_timestamp = h.max_timestamp;
    if (o.origin == append_origin::replication) {
        return v;
    }
    // 6. Batch-level client rules.
    if (o.origin == append_origin::client) {
        if (auto st = check_client_batch(h, o); !st) {
            return fail(st.code(), st.err().message);
        }
    }
    // 7 and 8. Records.
    auto it = record_iterator::open(batch, o.max_uncompressed_bytes);
    if (!it) {
        return fail(it.code(), it.err().message);
    }
    record_rules rules(o);
    const bool batch_lat = h.timestamp_type() == timestamp_type::log_append_time;
    int64_t max_ts = no_timestamp;
    int32_t max_ts_delta = -1;
    int32_t previous_delta = -1;
    record r;
    for (int32_t index = 0;; ++index) {
        auto more = it->next(r);
        if (!more) {
            return fail(more.code(), more.err().message + in_partition(o));
        }
        if (!*more) {
            break;
        }
        bool delta_ok =
            o.origin == append_origin::client
                ? r.offset_delta == index
                : r.offset_delta > previous_delta && r.offset_delta <= h.last_offset_delta;
        if (!delta_ok) {
            return fail(error_code::invalid_record,
                        "Record at index " + std::to_string(index) + " has offset delta " +
                            std::to_string(r.offset_delta) + " out of sequence" + in_partition(o));
        }
        previous_delta = r.offset_delta;
        if (h.is_control()) {
            if (auto type = parse_control_record_key(r.key); !type) {
                return fail(type.code(), type.err().message + in_partition(o));
            }
        }
        int64_t ts = it->timestamp_of(r);
        rules.check(index, r.key.has_value(), ts, it->offset_of(r), batch_lat);
        if (ts > max_ts) {
            max_ts = ts;
            max_ts_delta = r.offset_delta;
        }
    }
    if (rules.failed()) {
        batch_validation bad;
        bad.error = rules.batch_error(bad.record_errors);
        return bad;
    }
    if (o.message_timestamp_type == timestamp_type::log_append_time) {
        // Every record of the appended batch reads the append time; the first
        // record is the first to carry it.
        v.max_timestamp = o.now_ms;
        v.offset_delta_of_max_timestamp = h.records_count > 0 ? 0 : -1;
    } else {
        v.max_timestamp = max_ts;
        v.offset_delta_of_max_timestamp = max_ts_delta;
    }
    return v;
}

// ---- validate_produce_records --------------------------------------------------

namespace {

enum class entry_state { whole, partial, corrupt };

// Kafka's ByteBufferLogInputStream.nextBatchSize: is a whole entry at `p`?
entry_state next_entry(bytes_view in, size_t* size, int8_t* magic, std::string* why) {
    if (in.size() < log_overhead) {
        return entry_state::partial;
    }
    int32_t length = int32_t(load_be32(in.data() + 8));
    if (length < min_entry_length) {
        *why = "Record size " + std::to_string(length) +
               " is less than the minimum record overhead (" + std::to_string(min_entry_length) +
               ")";
        return entry_state::corrupt;
    }
    if (in.size() <= magic_offset) {
        return entry_state::partial;
    }
    *magic = int8_t(in[magic_offset]);
    if (*magic < 0 || *magic > current_magic) {
        *why = "Invalid magic found in record: " + std::to_string(*magic);
        return entry_state::corrupt;
    }
    *size = log_overhead + size_t(length);
    return in.size() >= *size ? entry_state::whole : entry_state::partial;
}

}  // namespace

result<produce_records> validate_produce_records(bytes_view records, int16_t version) {
    const std::string v = std::to_string(version);
    size_t size = 0;
    int8_t magic = current_magic;
    std::string why;
    entry_state first = next_entry(records, &size, &magic, &why);
    if (first == entry_state::corrupt) {
        return error(error_code::corrupt_message, why);
    }
    if (first == entry_state::partial) {
        if (version < first_produce_version_v2_only) {
            return produce_records{current_magic, {}};
        }
        return error(error_code::invalid_record, "Produce requests with version " + v +
                                                     " must have at least one record batch per "
                                                     "partition");
    }
    if (magic != current_magic) {
        if (version >= first_produce_version_v2_only) {
            return error(error_code::invalid_record,
                         "Produce requests with version " + v +
                             " are only allowed to contain record batches with magic version 2");
        }
        return produce_records{magic, records};
    }
    if (size >= batch_header_size) {
        int16_t attributes = int16_t(load_be16(records.data() + attributes_offset));
        if ((attributes & batch_attributes::compression_mask) == int16_t(compression::zstd) &&
            version < first_produce_version_with_zstd) {
            return error(error_code::unsupported_compression_type,
                         "Produce requests with version " + v +
                             " are not allowed to use ZStandard compression");
        }
    }
    size_t second_size = 0;
    int8_t second_magic = 0;
    entry_state second = next_entry(records.subspan(size), &second_size, &second_magic, &why);
    if (second == entry_state::corrupt) {
        return error(error_code::corrupt_message, why);
    }
    if (second == entry_state::whole) {
        return error(error_code::invalid_record,
                     version >= first_produce_version_v2_only
                         ? "Produce requests with version " + v +
                               " are only allowed to contain exactly one record batch per "
                               "partition"
                         : std::string("Compressed outer record has more than one batch"));
    }
    return produce_records{current_magic, records.subspan(0, size)};
}

}  // namespace samsa::record
