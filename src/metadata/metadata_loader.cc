#include "metadata/metadata_loader.h"

#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "common/logging/loggers.h"
#include "metadata/metadata_record_serde.h"
#include "raft/raft_batch_codec.h"

namespace samsa::metadata {

metadata_loader::metadata_loader(std::shared_ptr<const metadata_image> base)
    : _base(base), _image(std::move(base)) {}

void metadata_loader::handle_commit(const raft::raft_batch& batch) {
    if (batch.is_control()) {
        return;
    }
    // Decoded whole first: a batch that cannot be read is left out entirely.
    std::vector<metadata_record> records;
    records.reserve(batch.records.size());
    for (const auto& value : batch.records) {
        auto rec = decode_metadata_record(value);
        if (!rec) {
            logging::metadata().critical("event=metadata_record_undecodable offset={} error=\"{}\"",
                                         batch.base_offset.value(), rec.err().message);
            return;
        }
        records.push_back(std::move(*rec));
    }
    if (!_pending) {
        _pending.emplace(_image);
    }
    for (const auto& value : batch.records) {
        _bytes_since_snapshot += int64_t(value.size());
    }
    for (const auto& rec : records) {
        if (auto st = _pending->apply(rec); !st) {
            // The controller applied the same records before appending them,
            // so this means the log holds what no controller wrote.
            logging::metadata().critical(
                "event=metadata_record_inconsistent offset={} error=\"{}\"",
                batch.base_offset.value(), st.err().message);
        }
    }
    _pending_last_offset = batch.last_offset().value();
    _pending_end_offset = batch.end_offset().value();
    _pending_epoch = batch.epoch;
    _last_commit_wall_ms = wall_clock_ms();
}

std::shared_ptr<const metadata_image> metadata_loader::end_of_commits() {
    if (!_pending) {
        return nullptr;
    }
    _image = _pending->build(_pending_last_offset);
    _pending.reset();
    _end_offset = _pending_end_offset;
    _epoch = _pending_epoch;
    return _image;
}

result<std::shared_ptr<const metadata_image>> metadata_loader::load_snapshot(
    const raft::raft_snapshot& snapshot) {
    _pending.reset();  // the snapshot holds all of it
    auto batches = raft::decode_record_batches(*snapshot.data);
    if (!batches) {
        return batches.err();
    }
    metadata_delta delta(_base);
    for (const auto& b : *batches) {
        if (b.is_control()) {
            continue;  // SnapshotHeader / SnapshotFooter
        }
        for (const auto& value : b.records) {
            auto rec = decode_metadata_record(value);
            if (!rec) {
                return rec.err();
            }
            if (auto st = delta.apply(*rec); !st) {
                return st.err();
            }
        }
    }
    _image = delta.build(snapshot.id.offset.value() - 1);
    _end_offset = snapshot.id.offset.value();
    _epoch = snapshot.id.epoch;
    return _image;
}

}  // namespace samsa::metadata
