#pragma once
// Walking record batches and the records inside one batch.
//
// batch_iterator: header-only iteration over a byte range of v2 batches (a
// segment file region, a fetch response, a produce blob). It never looks past
// a batch header unless asked to verify CRCs, and it stops at the first bytes
// that are not a whole, plausible batch, saying why:
//   * end        the range held whole batches only;
//   * truncated  a batch starts but does not end inside the range (a torn write
//                at the log tail, or a fetch response cut at max_bytes);
//   * corrupt    a header no v2 batch can have (length below the 61-byte header,
//                above the allowed maximum, magic other than 2, or - when asked -
//                a CRC mismatch). stop_error() carries CORRUPT_MESSAGE and why.
// position() is then the length of the valid prefix, the truncation point for
// log recovery.
//
// record_iterator: the records of one batch, decompressed into a buffer the
// iterator owns when the batch is compressed. Records it yields view either the
// caller's batch bytes or that buffer: they stay valid while the iterator (or
// anything it was moved into) lives and the caller's bytes do. It checks the
// record structure and that the declared count matches the bytes exactly, as
// Kafka's DefaultRecordBatch iterator does, but not the CRC (see
// record/batch_validator.h).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_header.h"
#include "record/compression.h"
#include "record/record.h"

namespace samsa::record {

enum class batch_stop : uint8_t { none, end, truncated, corrupt };

struct batch_view {
    batch_header header;
    bytes_view data;  // the whole batch, header included
    size_t position;  // where the batch starts in the iterated range
};

struct batch_iterator_options {
    // Largest batch (header included) accepted; larger lengths are corrupt.
    size_t max_batch_size = size_t(std::numeric_limits<int32_t>::max());
    // Also check each batch's CRC32C (log recovery); a mismatch is corrupt.
    bool verify_crc = false;
};

class batch_iterator {
  public:
    explicit batch_iterator(bytes_view range, batch_iterator_options options = {});

    // The next whole batch, or nullopt once iteration has stopped (see stop()).
    std::optional<batch_view> next();

    batch_stop stop() const { return _stop; }
    // Why iteration stopped when stop() == corrupt (CORRUPT_MESSAGE).
    const error& stop_error() const { return _error; }
    // Bytes of whole valid batches consumed so far.
    size_t position() const { return _pos; }

  private:
    std::optional<batch_view> halt(batch_stop why, std::string message = {});

    bytes_view _range;
    batch_iterator_options _options;
    size_t _pos = 0;
    batch_stop _stop = batch_stop::none;
    error _error{error_code::none};
};

// Whether `batch` is exactly one v2 batch as far as its framing goes: a whole
// header, magic 2, batch_length matching the byte count (CORRUPT_MESSAGE if not).
// The CRC is not checked (see check_batch_integrity in record/batch_validator.h).
status check_batch_structure(bytes_view batch);

class record_iterator {
  public:
    // Opens one whole v2 batch (exactly its bytes). Errors: CORRUPT_MESSAGE for a
    // size or magic that is not a v2 batch, or records that do not decompress
    // within `max_uncompressed_bytes`; UNSUPPORTED_COMPRESSION_TYPE for codec 5-7;
    // INVALID_RECORD for a negative records_count.
    static result<record_iterator> open(
        bytes_view batch, size_t max_uncompressed_bytes = default_max_uncompressed_bytes);

    record_iterator(record_iterator&&) = default;
    record_iterator& operator=(record_iterator&&) = default;
    record_iterator(const record_iterator&) = delete;
    record_iterator& operator=(const record_iterator&) = delete;

    const batch_header& header() const { return _header; }
    // The records region: the batch bytes after the header, decompressed.
    bytes_view records_data() const { return _records; }
    int32_t records_read() const { return _read; }

    // Decodes the next record into `out`: true when it did, false after the
    // last of records_count records. INVALID_RECORD when a record is malformed,
    // the bytes end before records_count records, or bytes remain after them.
    result<bool> next(record& out);

    // Kafka's view of a record: absolute offset, and the timestamp (the batch's
    // max_timestamp for every record of a LogAppendTime batch). Sums wrap as
    // Java's longs do, so hostile deltas cannot cause signed overflow.
    int64_t offset_of(const record& r) const {
        return int64_t(uint64_t(_header.base_offset) + uint64_t(int64_t(r.offset_delta)));
    }
    int64_t timestamp_of(const record& r) const {
        return _header.timestamp_type() == timestamp_type::log_append_time
                   ? _header.max_timestamp
                   : int64_t(uint64_t(_header.base_timestamp) + uint64_t(r.timestamp_delta));
    }

  private:
    record_iterator() = default;

    batch_header _header;
    bytes _owned;  // decompressed records, when the batch is compressed
    bytes_view _records;
    size_t _pos = 0;
    int32_t _read = 0;
};

}  // namespace samsa::record
