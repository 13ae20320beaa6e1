#include "metadata/metadata_log.h"

#include <fmt/format.h>

#include <chrono>

#include "metadata/metadata_delta.h"
#include "record/batch_builder.h"
#include "record/batch_iterator.h"

namespace samsa::metadata {

namespace {

int64_t wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Kafka's METADATA_TOPIC_ID (AAAAAAAAAAAAAAAAAAAAAQ): the reserved id of the
// metadata topic, written to its partition.metadata.
uuid metadata_topic_id() {
    uuid u;
    u.data[15] = 1;
    return u;
}

// Read in chunks of this much; a batch larger than it is still read whole
// (min_one_message).
constexpr int64_t replay_read_bytes = 1 << 20;

}  // namespace

result<std::shared_ptr<storage::log>> open_metadata_partition(const std::string& dir,
                                                              int64_t now_ms) {
    storage::log_open_options o;
    o.tp = {cluster_metadata_topic, 0};
    o.dir = dir + "/" + o.tp.to_string();
    o.now_ms = now_ms;
    o.topic_id = metadata_topic_id();
    // The log is small and read whole at start: always recover it from the
    // beginning rather than trust checkpoints the log manager does not keep for it.
    o.had_clean_shutdown = false;
    o.recovery_point = 0;
    // No topic retention here: like Kafka's, the metadata log's start moves
    // only up to a snapshot, when metadata.max.retention.* let the older
    // snapshots go (raft/snapshot_cleaning.h).
    o.config.retention_ms = -1;
    o.config.retention_bytes = -1;
    o.config.max_message_bytes = 64 * 1024 * 1024;
    return storage::log::open(std::move(o));
}

result<std::unique_ptr<metadata_log>> metadata_log::open(const std::string& dir, int64_t now_ms) {
    auto l = open_metadata_partition(dir, now_ms);
    if (!l) {
        return l.err();
    }
    // Everything on disk was acknowledged: in a quorum of one it is committed.
    (*l)->update_high_watermark((*l)->log_end_offset());
    return std::unique_ptr<metadata_log>(new metadata_log(std::move(*l)));
}

metadata_log::~metadata_log() {
    (void)close();
}

const std::string& metadata_log::dir() const {
    return _log->dir();
}

int64_t metadata_log::end_offset() const {
    return _log->log_end_offset();
}

status metadata_log::replay(const batch_fn& fn) const {
    int64_t offset = _log->log_start_offset();
    const int64_t end = _log->log_end_offset();
    while (offset < end) {
        auto read = _log->read(kafka_offset{offset}, replay_read_bytes, std::nullopt, true);
        if (!read) {
            return read.err();
        }
        if (read->records.empty()) {
            break;
        }
        auto data = read->records.read();
        if (!data) {
            return data.err();
        }
        record::batch_iterator batches(*data);
        bool progressed = false;
        while (auto batch = batches.next()) {
            progressed = true;
            offset = batch->header.last_offset() + 1;
            if (batch->header.is_control()) {
                continue;
            }
            auto it = record::record_iterator::open(batch->data);
            if (!it) {
                return it.err();
            }
            std::vector<metadata_record> records;
            record::record rec;
            while (true) {
                auto more = it->next(rec);
                if (!more) {
                    return more.err();
                }
                if (!*more) {
                    break;
                }
                if (!rec.value) {
                    return error(error_code::corrupt_message,
                                 fmt::format("metadata record at offset {} has a null value",
                                             it->offset_of(rec)));
                }
                auto decoded = decode_metadata_record(*rec.value);
                if (!decoded) {
                    return error(decoded.err().code,
                                 fmt::format("metadata record at offset {}: {}", it->offset_of(rec),
                                             decoded.err().message));
                }
                records.push_back(std::move(*decoded));
            }
            if (auto s = fn(batch->header.last_offset(), std::move(records)); !s) {
                return s;
            }
        }
        if (batches.stop() == record::batch_stop::corrupt) {
            return batches.stop_error();
        }
        if (!progressed) {
            // Recovery left only whole batches below the LEO; a read that
            // yields none would loop forever.
            return error(error_code::corrupt_message,
                         fmt::format("metadata log has no whole batch at offset {}", offset));
        }
    }
    return {};
}

result<int64_t> metadata_log::append(const std::vector<metadata_record>& records) {
    if (records.empty()) {
        return error(error_code::invalid_request, "empty metadata batch");
    }
    const int64_t now = wall_clock_ms();
    record::batch_options opts;
    opts.partition_leader_epoch = local_metadata_epoch;
    record::batch_builder builder(opts);
    for (const auto& r : records) {
        bytes value = encode_metadata_record(r);
        builder.add(now, std::nullopt, bytes_view(value));
    }
    auto batch = builder.build();
    if (!batch) {
        return batch.err();
    }
    auto appended = _log->append_as_leader(*batch, local_metadata_epoch, now);
    if (!appended) {
        return appended.err();
    }
    if (auto s = _log->flush(); !s) {
        return s.err();
    }
    _log->update_high_watermark(_log->log_end_offset());
    return appended->last_offset;
}

status metadata_log::close() {
    if (_closed) {
        return {};
    }
    _closed = true;
    return _log->close();
}

result<std::shared_ptr<const metadata_image>> replay_image(
    const metadata_log& log, std::shared_ptr<const metadata_image> base) {
    auto image = std::move(base);
    auto st = log.replay([&](int64_t last_offset, std::vector<metadata_record> records) -> status {
        metadata_delta delta(image);
        for (const auto& r : records) {
            if (auto s = delta.apply(r); !s) {
                return error(s.err().code, fmt::format("metadata batch ending at offset {}: {}",
                                                       last_offset, s.err().message));
            }
        }
        image = delta.build(last_offset);
        return {};
    });
    if (!st) {
        return st.err();
    }
    return image;
}

}  // namespace samsa::metadata
