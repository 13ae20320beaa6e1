#include "metadata/snapshot_generator.h"

#include <algorithm>

#include "metadata/image_records.h"
#include "metadata/metadata_record_serde.h"
#include "protocol/generated/snapshot_footer_record.h"
#include "protocol/generated/snapshot_header_record.h"
#include "protocol/writer.h"
#include "raft/raft_batch_codec.h"

namespace samsa::metadata {

namespace {

constexpr size_t k_records_per_batch = 1000;

template <typename Record>
bytes encode_control(const Record& r) {
    protocol::writer w;
    r.encode(w, 0);
    return std::move(w.buffer());
}

}  // namespace

result<bytes> encode_snapshot(const metadata_image& image, raft::raft_epoch epoch,
                              int64_t last_contained_log_timestamp_ms, int64_t now_ms) {
    return encode_snapshot_records(image_to_records(image), epoch, last_contained_log_timestamp_ms,
                                   now_ms);
}

result<bytes> encode_snapshot_records(const std::vector<metadata_record>& records,
                                      raft::raft_epoch epoch,
                                      int64_t last_contained_log_timestamp_ms, int64_t now_ms) {
    bytes data;
    int64_t next_offset = 0;
    auto add = [&](raft::raft_batch b) -> status {
        b.base_offset = raft::raft_offset{next_offset};
        b.epoch = epoch;
        next_offset += int64_t(b.records.size());
        auto encoded = raft::encode_record_batch(b, now_ms);
        if (!encoded) {
            return encoded.err();
        }
        data.insert(data.end(), encoded->begin(), encoded->end());
        return {};
    };

    raft::raft_batch header;
    header.control = raft::control_record_type::snapshot_header;
    protocol::snapshot_header_record h;
    h.last_contained_log_timestamp = last_contained_log_timestamp_ms;
    header.records.push_back(encode_control(h));
    if (auto st = add(std::move(header)); !st) {
        return st.err();
    }

    for (size_t i = 0; i < records.size(); i += k_records_per_batch) {
        raft::raft_batch b;
        for (size_t j = i; j < std::min(records.size(), i + k_records_per_batch); ++j) {
            b.records.push_back(encode_metadata_record(records[j]));
        }
        if (auto st = add(std::move(b)); !st) {
            return st.err();
        }
    }

    raft::raft_batch footer;
    footer.control = raft::control_record_type::snapshot_footer;
    footer.records.push_back(encode_control(protocol::snapshot_footer_record{}));
    if (auto st = add(std::move(footer)); !st) {
        return st.err();
    }
    return data;
}

}  // namespace samsa::metadata
