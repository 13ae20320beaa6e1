#pragma once
// Message sets of magic 0 and 1, which clients older than Kafka 0.11 send
// (Produce v0-v2). Samsa's logs hold v2 batches only, so these are parsed,
// validated and converted to one v2 batch, as Kafka up-converts them.
//
// A message set is a sequence of entries:
//   int64  offset
//   int32  message_size          bytes of the message below
//   message:
//     int32  crc                 CRC32 (zlib's, as java.util.zip.CRC32) of magic..end
//     int8   magic               0 or 1
//     int8   attributes          bits 0-2 codec (0 none, 1 gzip, 2 snappy, 3 lz4),
//                                bit 3 timestamp type (magic 1: 1 = LogAppendTime)
//     int64  timestamp           magic 1 only
//     int32  key_length          -1 = null
//     bytes  key
//     int32  value_length        -1 = null
//     bytes  value
//
// A compressed message is a wrapper whose value is a compressed message set of
// uncompressed inner messages of the same magic. Magic 1 inner offsets are
// relative (0..n-1) and the wrapper's offset is the absolute offset of the last
// one; magic 0 inner offsets are absolute. Inner messages of a LogAppendTime
// magic 1 wrapper take the wrapper's timestamp. Magic 0 LZ4 wrappers carry
// Kafka's miscomputed frame header checksum, which is ignored.
//
// Checks, with Kafka's codes: entry length >= 14 and magic 0..2 (CORRUPT_MESSAGE),
// one magic for every entry (INVALID_RECORD), entry size over max.message.bytes
// (MESSAGE_TOO_LARGE), CRC and field lengths (CORRUPT_MESSAGE), codec 4-7
// (UNSUPPORTED_COMPRESSION_TYPE: zstd needs magic 2), a compressed wrapper must be
// the only entry and hold at least one inner message (INVALID_RECORD), inner
// messages must match the wrapper's magic and not be compressed (INVALID_RECORD),
// then the per-record key and timestamp rules of record/batch_validator.h.
// A partial entry at the end of the set is ignored, as Kafka trims it.
#include <cstdint>
#include <optional>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_header.h"
#include "record/batch_validator.h"
#include "record/compression.h"

namespace samsa::record {

inline constexpr size_t legacy_overhead_v0 = 14;  // crc, magic, attributes, key and value lengths
inline constexpr size_t legacy_overhead_v1 = 22;  // ... and the timestamp

struct legacy_message {
    int64_t offset = 0;  // absolute for magic 0, resolved to absolute for magic 1
    int8_t magic = 0;
    int8_t attributes = 0;
    int64_t timestamp = no_timestamp;  // -1 for magic 0
    bool log_append_time = false;      // the message (or its wrapper) claims LogAppendTime
    std::optional<bytes_view> key;
    std::optional<bytes_view> value;
};

class legacy_message_set {
  public:
    // Parses and validates a magic 0/1 message set with the options of the
    // topic (origin is ignored: only clients send these).
    static result<legacy_message_set> parse(bytes_view in, const validation_options& options);

    legacy_message_set(legacy_message_set&&) = default;
    legacy_message_set& operator=(legacy_message_set&&) = default;
    legacy_message_set(const legacy_message_set&) = delete;
    legacy_message_set& operator=(const legacy_message_set&) = delete;

    int8_t magic() const { return _magic; }
    // The wrapper's codec (none when the set is not compressed); Kafka writes
    // the converted batch with it when compression.type is "producer".
    compression source_compression() const { return _codec; }
    // The (inner, for a wrapper) messages in order. Views point into the parsed
    // bytes or into a buffer this set owns.
    const std::vector<legacy_message>& messages() const { return _messages; }
    // Bytes of whole entries read; less than the input when a partial entry
    // was trimmed.
    size_t valid_bytes() const { return _valid_bytes; }

  private:
    legacy_message_set() = default;

    int8_t _magic = 0;
    compression _codec = compression::none;
    std::vector<legacy_message> _messages;
    bytes _decompressed;
    size_t _valid_bytes = 0;
};

// One v2 batch holding the set's messages with offset deltas 0..n-1 (the broker
// assigns the base offset), no producer id, compressed with `codec`. With a
// LogAppendTime topic the batch is stamped with `now_ms`. INVALID_RECORD for an
// empty set; compression errors as compress().
result<bytes> convert_to_v2(const legacy_message_set& set, compression codec,
                            timestamp_type topic_timestamp_type, int64_t now_ms);

// Appends one entry (offset, size, message with its CRC) to `out`: for tests,
// and for answering old consumers should down-conversion ever be needed.
void encode_legacy_message(bytes& out, int8_t magic, int64_t offset, int8_t attributes,
                           int64_t timestamp, std::optional<bytes_view> key,
                           std::optional<bytes_view> value);

}  // namespace samsa::record
