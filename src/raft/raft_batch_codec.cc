#include "raft/raft_batch_codec.h"

#include <fmt/format.h>

#include "record/batch_builder.h"
#include "record/batch_iterator.h"
#include "record/control_record.h"

namespace samsa::raft {

namespace {

result<raft_batch> decode_one(bytes_view data) {
    auto it = record::record_iterator::open(data);
    if (!it) {
        return it.err();
    }
    raft_batch b;
    b.base_offset = raft_offset{it->header().base_offset};
    b.epoch = raft_epoch{it->header().partition_leader_epoch};
    record::record r;
    while (true) {
        auto more = it->next(r);
        if (!more) {
            return more.err();
        }
        if (!*more) {
            break;
        }
        if (it->header().is_control() && b.records.empty()) {
            auto type = record::parse_control_record_key(r.key);
            if (!type) {
                return type.err();
            }
            b.control = control_record_type(int16_t(*type));
        }
        b.records.emplace_back(r.value ? bytes(r.value->begin(), r.value->end()) : bytes{});
    }
    if (b.records.empty()) {
        return error{error_code::corrupt_message,
                     fmt::format("empty Raft batch at offset {}", b.base_offset)};
    }
    return b;
}

}  // namespace

result<bytes> encode_record_batch(const raft_batch& batch, int64_t timestamp_ms) {
    record::batch_options opts;
    opts.base_offset = batch.base_offset.value();
    opts.partition_leader_epoch = batch.epoch.value();
    opts.control = batch.is_control();
    record::batch_builder builder(opts);
    bytes key;
    if (opts.control) {
        key =
            record::encode_control_record_key(record::control_record_type(int16_t(batch.control)));
    }
    for (const auto& r : batch.records) {
        builder.add(timestamp_ms, opts.control ? std::optional<bytes_view>(key) : std::nullopt,
                    bytes_view(r));
    }
    return builder.build();
}

result<std::vector<raft_batch>> decode_record_batches(bytes_view data) {
    std::vector<raft_batch> out;
    record::batch_iterator batches(data);
    while (auto v = batches.next()) {
        auto b = decode_one(v->data);
        if (!b) {
            return b.err();
        }
        out.push_back(std::move(*b));
    }
    if (batches.stop() == record::batch_stop::corrupt) {
        return batches.stop_error();
    }
    return out;
}

}  // namespace samsa::raft
