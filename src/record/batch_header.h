#pragma once
// Record batch v2 (magic 2) header, as Kafka lays it out on the wire and on disk.
//
//   offset  size  field
//        0     8  base_offset             set by the broker on append
//        8     4  batch_length            bytes after this field
//       12     4  partition_leader_epoch  set by the broker on append
//       16     1  magic                   2
//       17     4  crc                     CRC32C of bytes [21, end of batch)
//       21     2  attributes              bits 0-2 codec, 3 timestamp type, 4 transactional,
//                                         5 control, 6 delete horizon set
//       23     4  last_offset_delta
//       27     8  base_timestamp          (the delete horizon when bit 6 is set)
//       35     8  max_timestamp
//       43     8  producer_id
//       51     2  producer_epoch
//       53     4  base_sequence
//       57     4  records_count
//       61        records...
//
// Invariant: base_offset and partition_leader_epoch lie outside the CRC, so the
// broker stamps them without recomputing it.
#include <cstddef>
#include <cstdint>

#include "common/bytes.h"

namespace samsa::record {

inline constexpr size_t log_overhead = 12;  // base_offset + batch_length
inline constexpr size_t batch_header_size = 61;
inline constexpr size_t crc_offset = 17;
inline constexpr size_t attributes_offset = 21;
inline constexpr size_t partition_leader_epoch_offset = 12;
inline constexpr size_t magic_offset = 16;
inline constexpr size_t max_timestamp_offset = 35;
inline constexpr int8_t current_magic = 2;
inline constexpr int64_t no_timestamp = -1;
inline constexpr int64_t no_producer_id = -1;
inline constexpr int16_t no_producer_epoch = -1;
inline constexpr int32_t no_sequence = -1;
inline constexpr int32_t no_partition_leader_epoch = -1;

enum class compression : uint8_t { none = 0, gzip = 1, snappy = 2, lz4 = 3, zstd = 4 };
enum class timestamp_type : uint8_t { create_time = 0, log_append_time = 1 };

struct batch_attributes {
    static constexpr int16_t compression_mask = 0x07;
    static constexpr int16_t timestamp_type_bit = 0x08;
    static constexpr int16_t transactional_bit = 0x10;
    static constexpr int16_t control_bit = 0x20;
    static constexpr int16_t delete_horizon_bit = 0x40;
};

// Inside namespace samsa::record, `record` names the struct of record/record.h,
// so members here qualify the enums fully.
struct batch_header {
    int64_t base_offset = 0;
    int32_t batch_length = 0;
    int32_t partition_leader_epoch = no_partition_leader_epoch;
    int8_t magic = current_magic;
    uint32_t crc = 0;
    int16_t attributes = 0;
    int32_t last_offset_delta = 0;
    int64_t base_timestamp = no_timestamp;
    int64_t max_timestamp = no_timestamp;
    int64_t producer_id = no_producer_id;
    int16_t producer_epoch = no_producer_epoch;
    int32_t base_sequence = no_sequence;
    int32_t records_count = 0;

    // Wraps as Java's long does, so hostile headers cannot cause signed overflow.
    int64_t last_offset() const {
        return int64_t(uint64_t(base_offset) + uint64_t(int64_t(last_offset_delta)));
    }
    // Bytes the whole batch takes, header included.
    size_t size_bytes() const { return log_overhead + size_t(batch_length); }
    samsa::record::compression compression() const {
        return samsa::record::compression(attributes & batch_attributes::compression_mask);
    }
    samsa::record::timestamp_type timestamp_type() const {
        return (attributes & batch_attributes::timestamp_type_bit)
                   ? samsa::record::timestamp_type::log_append_time
                   : samsa::record::timestamp_type::create_time;
    }
    bool is_transactional() const { return attributes & batch_attributes::transactional_bit; }
    bool is_control() const { return attributes & batch_attributes::control_bit; }
    bool has_delete_horizon() const { return attributes & batch_attributes::delete_horizon_bit; }
    bool has_producer_id() const { return producer_id >= 0; }
};

// Decodes the fixed header; `p` must point at batch_header_size readable bytes.
// Checks nothing: see record/batch_validator.h for validation.
inline batch_header decode_batch_header(const uint8_t* p) {
    batch_header h;
    h.base_offset = int64_t(load_be64(p));
    h.batch_length = int32_t(load_be32(p + 8));
    h.partition_leader_epoch = int32_t(load_be32(p + 12));
    h.magic = int8_t(p[16]);
    h.crc = load_be32(p + 17);
    h.attributes = int16_t(load_be16(p + 21));
    h.last_offset_delta = int32_t(load_be32(p + 23));
    h.base_timestamp = int64_t(load_be64(p + 27));
    h.max_timestamp = int64_t(load_be64(p + 35));
    h.producer_id = int64_t(load_be64(p + 43));
    h.producer_epoch = int16_t(load_be16(p + 51));
    h.base_sequence = int32_t(load_be32(p + 53));
    h.records_count = int32_t(load_be32(p + 57));
    return h;
}

// Writes every header field except the CRC, then nothing else.
inline void encode_batch_header(const batch_header& h, uint8_t* p) {
    store_be64(p, uint64_t(h.base_offset));
    store_be32(p + 8, uint32_t(h.batch_length));
    store_be32(p + 12, uint32_t(h.partition_leader_epoch));
    p[16] = uint8_t(h.magic);
    store_be32(p + 17, h.crc);
    store_be16(p + 21, uint16_t(h.attributes));
    store_be32(p + 23, uint32_t(h.last_offset_delta));
    store_be64(p + 27, uint64_t(h.base_timestamp));
    store_be64(p + 35, uint64_t(h.max_timestamp));
    store_be64(p + 43, uint64_t(h.producer_id));
    store_be16(p + 51, uint16_t(h.producer_epoch));
    store_be32(p + 53, uint32_t(h.base_sequence));
    store_be32(p + 57, uint32_t(h.records_count));
}

}  // namespace samsa::record
