#pragma once
// Builds valid record batch v2 bytes for storage tests: header, records
// (record/record.h), optional compression, CRC32C over [21, end).
#include <cstdint>
#include <vector>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "record/batch_header.h"
#include "record/compression.h"
#include "record/record.h"

namespace samsa::storage::testing {

struct batch_spec {
    int64_t base_offset = 0;
    int records = 1;
    size_t value_size = 16;
    int64_t base_timestamp = 1000;
    int64_t timestamp_step = 1;  // record i has base_timestamp + i * step
    int32_t partition_leader_epoch = -1;
    record::compression codec = record::compression::none;
    uint8_t fill = 0;  // value bytes are fill + record index
};

inline bytes make_batch(const batch_spec& s) {
    bytes recs;
    std::vector<bytes> values(size_t(s.records));
    int64_t max_ts = s.base_timestamp;
    for (int i = 0; i < s.records; ++i) {
        values[size_t(i)].assign(s.value_size, uint8_t(s.fill + i));
        record::record r;
        r.offset_delta = i;
        r.timestamp_delta = int64_t(i) * s.timestamp_step;
        max_ts = std::max(max_ts, s.base_timestamp + r.timestamp_delta);
        r.value = bytes_view(values[size_t(i)]);
        record::encode_record(r, recs);
    }
    if (s.codec != record::compression::none) {
        recs = std::move(*record::compress(s.codec, recs));
    }
    record::batch_header h;
    h.base_offset = s.base_offset;
    h.batch_length = int32_t(record::batch_header_size - record::log_overhead + recs.size());
    h.partition_leader_epoch = s.partition_leader_epoch;
    h.attributes = int16_t(s.codec);
    h.last_offset_delta = s.records - 1;
    h.base_timestamp = s.base_timestamp;
    h.max_timestamp = max_ts;
    h.records_count = s.records;
    bytes out(record::batch_header_size + recs.size());
    record::encode_batch_header(h, out.data());
    std::copy(recs.begin(), recs.end(), out.begin() + record::batch_header_size);
    uint32_t crc =
        crc32c(out.data() + record::attributes_offset, out.size() - record::attributes_offset);
    store_be32(out.data() + record::crc_offset, crc);
    return out;
}

// Whether `b` is one whole batch whose CRC32C matches.
inline bool batch_crc_ok(bytes_view b) {
    if (b.size() < record::batch_header_size) {
        return false;
    }
    auto h = record::decode_batch_header(b.data());
    if (h.size_bytes() != b.size()) {
        return false;
    }
    return crc32c(b.data() + record::attributes_offset, b.size() - record::attributes_offset) ==
           h.crc;
}

inline void append_to(bytes& out, const bytes& b) {
    out.insert(out.end(), b.begin(), b.end());
}

}  // namespace samsa::storage::testing
