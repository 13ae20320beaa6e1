#pragma once
// One record inside a v2 record batch (Kafka's DefaultRecord). Layout:
//
//   varint   length            bytes of everything below (the "body")
//   int8     attributes        unused by Kafka, written as 0
//   varlong  timestamp_delta   record timestamp - batch base_timestamp
//   varint   offset_delta      record offset - batch base_offset
//   varint   key_length        -1 = null key
//   bytes    key
//   varint   value_length      -1 = null value (a tombstone on compacted topics)
//   bytes    value
//   varint   header_count      >= 0
//   headers: varint key_length (>= 0), key (UTF-8, never null),
//            varint value_length (-1 = null), value
//
// varint/varlong are zigzag (common/varint.h). A decoded record holds views into
// the bytes it was decoded from (the batch, or its decompressed records): those
// bytes must outlive it. Decoding is bounded by the declared length, so a
// record can never read into its neighbour; every malformed input is an
// INVALID_RECORD error value, as Kafka's InvalidRecordException is.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"

namespace samsa::record {

struct record_header {
    std::string_view key;
    std::optional<bytes_view> value;  // nullopt: null value
};

struct record {
    int8_t attributes = 0;
    int64_t timestamp_delta = 0;
    int32_t offset_delta = 0;
    std::optional<bytes_view> key;    // nullopt: null key
    std::optional<bytes_view> value;  // nullopt: null value
    std::vector<record_header> headers;
    // Encoded size including the leading length varint (set by decode_record).
    size_t size_bytes = 0;
};

// Smallest possible encoded record: a one-byte varint for each of the seven
// fields and nothing else. Used to bound record counts before decoding.
inline constexpr size_t min_record_size = 7;

// Decodes the record at the start of `in` into `out` (whose views then point
// into `in`). Returns the number of bytes consumed (out.size_bytes).
result<size_t> decode_record(bytes_view in, record& out);

// Size of the body (what the length varint holds) and of the whole encoding.
size_t record_body_size(const record& r);
size_t encoded_record_size(const record& r);

// Appends the encoding of `r` (length varint first) to `out`. `size_bytes` is
// ignored; attributes, deltas, key, value and headers are written as given.
void encode_record(const record& r, bytes& out);

}  // namespace samsa::record
