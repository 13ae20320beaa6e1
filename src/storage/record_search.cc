#include "storage/record_search.h"

#include "record/batch_header.h"
#include "record/compression.h"
#include "record/record.h"

namespace samsa::storage {

result<std::optional<record_timestamp>> find_first_record_at_or_after(bytes_view batch,
                                                                      int64_t target,
                                                                      int64_t min_offset) {
    using result_t = std::optional<record_timestamp>;
    if (batch.size() < record::batch_header_size) {
        return error{error_code::corrupt_message, "batch shorter than its header"};
    }
    auto h = record::decode_batch_header(batch.data());
    if (h.max_timestamp < target || h.last_offset() < min_offset) {
        return result_t();
    }
    bytes_view records = batch.subspan(record::batch_header_size);
    bytes decompressed;
    if (h.compression() != record::compression::none) {
        auto d = record::decompress(h.compression(), records);
        if (!d) {
            return d.err();
        }
        decompressed = std::move(*d);
        records = decompressed;
    }
    bool append_time = h.timestamp_type() == record::timestamp_type::log_append_time;
    size_t pos = 0;
    for (int32_t i = 0; i < h.records_count && pos < records.size(); ++i) {
        record::record r;
        auto n = record::decode_record(records.subspan(pos), r);
        if (!n) {
            return n.err();
        }
        pos += *n;
        int64_t offset = int64_t(uint64_t(h.base_offset) + uint64_t(int64_t(r.offset_delta)));
        int64_t ts = append_time
                         ? h.max_timestamp
                         : int64_t(uint64_t(h.base_timestamp) + uint64_t(r.timestamp_delta));
        if (ts >= target && offset >= min_offset) {
            return result_t(record_timestamp{ts, offset});
        }
    }
    return result_t();
}

}  // namespace samsa::storage
