// log: appends, reads, lookups and rolls. Loading is in log_load.cc,
// truncation and retention in log_retention.cc, flushing in log_flush.cc.
#include "storage/log.h"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "common/logging/loggers.h"
#include "record/batch_builder.h"
#include "storage/segment_name.h"

namespace samsa::storage {

namespace fs = std::filesystem;

namespace {

// Summary of a blob of batches, checked for framing only.
struct batches_info {
    int32_t count = 0;
    int64_t records = 0;
    int64_t offsets = 0;  // sum of last_offset_delta + 1
    int64_t max_timestamp = -1;
    int32_t max_ts_batch = 0;  // index of the batch holding max_timestamp
    int64_t largest_batch = 0;
};

result<batches_info> scan_batches(bytes_view b) {
    batches_info info;
    size_t pos = 0;
    while (pos < b.size()) {
        if (b.size() - pos < record::batch_header_size) {
            return error{error_code::corrupt_message, "partial batch header"};
        }
        auto h = record::decode_batch_header(b.data() + pos);
        if (h.batch_length < int32_t(record::batch_header_size - record::log_overhead) ||
            h.size_bytes() > b.size() - pos) {
            return error{error_code::corrupt_message, "batch length does not match the bytes"};
        }
        if (h.magic != record::current_magic || h.last_offset_delta < 0) {
            return error{error_code::corrupt_message, "not a v2 batch"};
        }
        if (h.max_timestamp > info.max_timestamp || info.count == 0) {
            if (h.max_timestamp > info.max_timestamp) {
                info.max_timestamp = h.max_timestamp;
            }
            info.max_ts_batch = info.count;
        }
        info.records += h.records_count;
        info.offsets += int64_t(h.last_offset_delta) + 1;
        info.largest_batch = std::max<int64_t>(info.largest_batch, int64_t(h.size_bytes()));
        ++info.count;
        pos += h.size_bytes();
    }
    if (info.count == 0) {
        return error{error_code::corrupt_message, "no record batches"};
    }
    return info;
}

}  // namespace

blocking_executor inline_executor() {
    return [](std::function<status()> job, std::function<void(status)> done) { done(job()); };
}

log::log(log_open_options& o, leader_epoch_cache epochs)
    : _dir(o.dir),
      _tp(o.tp),
      _config(o.config),
      _topic_id(o.topic_id),
      _epochs(std::move(epochs)),
      _deletions(o.deletions ? o.deletions : std::make_shared<deletion_queue>()),
      _executor(o.executor ? o.executor : inline_executor()),
      _producers(o.dir, o.tp, o.producer_state),
      _dir_health(o.dir_health),
      _last_flush_ms(o.now_ms),
      _now_ms(o.now_ms),
      _background_flush(o.background_flush) {
    _compacted.store(_config.cleanup_compact, std::memory_order_relaxed);
}

log::~log() = default;

void log::set_log_start_offset(int64_t o) {
    _log_start_offset = o;
    _lso_snapshot.store(o);
}
void log::set_recovery_point(int64_t o) {
    _recovery_point = o;
    _rp_snapshot.store(o);
}
void log::set_high_watermark(int64_t o) {
    _high_watermark = std::clamp(o, _log_start_offset, _log_end_offset);
    _hw_snapshot.store(_high_watermark);
    _producers.on_high_watermark(_high_watermark);
}

int64_t log::last_stable_offset() const {
    auto first = _producers.first_unstable_offset();
    return first ? std::clamp(*first, _log_start_offset, _high_watermark) : _high_watermark;
}
void log::update_high_watermark(int64_t hw) {
    set_high_watermark(hw);
}

status log::fail(error e) {
    if (!_failure) {
        _failure = e;
        _after_flush = nullptr;
        fail_waiters_from(0, e);
        // Every failure routed here is an I/O error of this log's files: the
        // disk under the whole dir is suspect (KIP-112).
        if (_dir_health && e.code == error_code::kafka_storage_error) {
            _dir_health->take_offline(error{e.code, _tp.to_string() + ": " + e.message});
        }
    }
    return e;
}

status log::check_dir_online() {
    if (_failure) {
        return *_failure;
    }
    if (_dir_health && _dir_health->offline()) {
        auto cause = _dir_health->cause();
        return fail(cause ? *cause
                          : error{error_code::kafka_storage_error,
                                  "log dir of " + _tp.to_string() + " is offline"});
    }
    return {};
}

int64_t log::size_bytes() const {
    int64_t n = 0;
    for (const auto& [base, seg] : _segments) {
        n += seg->size_bytes();
    }
    return n;
}

std::vector<std::shared_ptr<const log_segment>> log::segments() const {
    std::vector<std::shared_ptr<const log_segment>> out;
    out.reserve(_segments.size());
    for (const auto& [base, seg] : _segments) {
        out.push_back(seg);
    }
    return out;
}

result<append_result> log::append_as_leader(std::span<uint8_t> batches, int32_t leader_epoch,
                                            int64_t now_ms, record::append_origin origin) {
    if (auto s = check_dir_online(); !s) {
        return s.err();
    }
    auto info = scan_batches(batches);
    if (!info) {
        return info.err();
    }
    int64_t offset = _log_end_offset;
    size_t pos = 0;
    while (pos < batches.size()) {
        auto h = record::decode_batch_header(batches.data() + pos);
        auto s = record::stamp_base_offset_and_epoch(batches.subspan(pos, h.size_bytes()), offset,
                                                     leader_epoch);
        if (!s) {
            return s.err();
        }
        offset += int64_t(h.last_offset_delta) + 1;
        pos += h.size_bytes();
    }
    return append_checked(batches, leader_epoch, origin, now_ms);
}

result<append_result> log::append_as_follower(bytes_view batches, int64_t now_ms) {
    if (auto s = check_dir_online(); !s) {
        return s.err();
    }
    if (batches.size() >= record::batch_header_size) {
        auto first = record::decode_batch_header(batches.data());
        if (first.base_offset < _log_end_offset) {
            return error{error_code::offset_out_of_range,
                         "follower append at " + std::to_string(first.base_offset) +
                             " below the log end offset " + std::to_string(_log_end_offset)};
        }
    }
    return append_checked(batches, -1, record::append_origin::replication, now_ms);
}

result<append_result> log::append_checked(bytes_view batches, int32_t leader_epoch,
                                          record::append_origin origin, int64_t now_ms) {
    const bool as_leader = origin != record::append_origin::replication;
    _now_ms = std::max(_now_ms, now_ms);
    auto info = scan_batches(batches);
    if (!info) {
        return info.err();
    }
    if (as_leader && info->largest_batch > _config.max_message_bytes) {
        return error{error_code::message_too_large, "batch of " +
                                                        std::to_string(info->largest_batch) +
                                                        " bytes exceeds max.message.bytes " +
                                                        std::to_string(_config.max_message_bytes)};
    }
    if (info->largest_batch > std::min<int64_t>(_config.segment_bytes, INT32_MAX)) {
        return error{error_code::record_list_too_large,
                     "batch of " + std::to_string(info->largest_batch) +
                         " bytes exceeds segment.bytes " + std::to_string(_config.segment_bytes)};
    }
    auto first = record::decode_batch_header(batches.data());
    int64_t first_offset = first.base_offset;
    // The last batch's last offset, and the batch holding the max timestamp.
    int64_t last_offset = first_offset;
    int64_t offset_of_max = first_offset;
    size_t pos = 0;
    for (int32_t i = 0; i < info->count; ++i) {
        auto h = record::decode_batch_header(batches.data() + pos);
        last_offset = h.last_offset();
        if (i == info->max_ts_batch) {
            offset_of_max = h.last_offset();
        }
        pos += h.size_bytes();
    }
    // Producer state is checked once offsets are known and before anything is
    // written; it is updated only after the write succeeded.
    auto producers = _producers.prepare(batches, origin);
    if (!producers) {
        return producers.err();
    }
    if (producers->duplicate) {
        const auto& d = *producers->duplicate;
        append_result r;
        r.first_offset = d.first_offset();
        r.last_offset = d.last_offset;
        r.log_append_time_ms = d.timestamp;
        r.log_start_offset = _log_start_offset;
        r.duplicate = true;
        return r;
    }
    if (auto s = maybe_roll(int64_t(batches.size()), info->max_timestamp, first_offset, last_offset,
                            now_ms);
        !s) {
        return s.err();
    }
    // New epochs start at the batch that first carries them. The checkpoint
    // is written before the records, as Kafka's UnifiedLog.append does: a log
    // never holds records of an epoch its checkpoint lacks, which a restart
    // would take for the previous epoch's, so that a follower asking its
    // leader where that epoch ends would truncate committed records.
    pos = 0;
    for (int32_t i = 0; i < info->count; ++i) {
        auto h = record::decode_batch_header(batches.data() + pos);
        int32_t epoch = as_leader ? leader_epoch : h.partition_leader_epoch;
        if (epoch >= 0 && (!_epochs.latest_epoch() || epoch > *_epochs.latest_epoch())) {
            if (auto s = _epochs.assign(epoch, h.base_offset); !s) {
                return fail(s.err()).err();
            }
        }
        pos += h.size_bytes();
    }
    if (auto s = active()->append(batches); !s) {
        if (s.code() == error_code::kafka_storage_error) {
            return fail(s.err()).err();
        }
        return s.err();
    }
    _log_end_offset = last_offset + 1;
    auto completed = producers->completed;  // commit() consumes the append
    _producers.commit(std::move(*producers), _log_end_offset);
    if (!completed.empty()) {
        if (auto s = index_aborted_transactions(completed); !s) {
            return fail(s.err()).err();
        }
    }
    _unflushed_messages += info->offsets;
    if (_unflushed_messages >= _config.flush_messages && !_flush_in_flight && _background_flush) {
        start_flush(_log_end_offset);
    }
    append_result r;
    r.first_offset = first_offset;
    r.last_offset = last_offset;
    r.max_timestamp = info->max_timestamp;
    r.offset_of_max_timestamp = offset_of_max;
    r.log_append_time_ms = now_ms;
    r.log_start_offset = _log_start_offset;
    r.batches = info->count;
    r.records = info->records;
    r.bytes = int64_t(batches.size());
    return r;
}

status log::maybe_roll(int64_t bytes, int64_t max_ts, int64_t first_offset, int64_t last_offset,
                       int64_t now_ms) {
    auto seg = active();
    if (seg->should_roll(_config, bytes, max_ts, last_offset, now_ms)) {
        return roll_at(std::max(first_offset, _log_end_offset), now_ms);
    }
    return {};
}

status log::roll_at(int64_t new_base, int64_t now_ms) {
    auto old = active();
    if (old->empty()) {
        if (old->base_offset() == new_base) {
            return {};
        }
        // An empty active segment below a gap (follower data): replace it.
        _segments.erase(old->base_offset());
        if (auto s = old->delete_files(); !s) {
            return fail(s.err());
        }
    } else if (auto s = old->on_become_inactive(); !s) {
        return fail(s.err());
    }
    auto seg = log_segment::create(_dir, new_base, _config, now_ms);
    if (!seg) {
        return fail(seg.err());
    }
    _segments.emplace(new_base, *seg);
    _dir_dirty = true;
    // The snapshot at the new base lets recovery start at this segment.
    if (auto s = snapshot_producer_state_at(new_base); !s) {
        return fail(s.err());
    }
    // As Kafka, flush the rolled segment in the background so that recovery
    // after a crash only has the active segment to re-read.
    if (!_flush_in_flight && _recovery_point < new_base && _background_flush) {
        start_flush(new_base);
    }
    return {};
}

result<int64_t> log::roll(int64_t now_ms) {
    if (_failure) {
        return *_failure;
    }
    if (auto s = roll_at(_log_end_offset, now_ms); !s) {
        return s.err();
    }
    return active()->base_offset();
}

error log::read_failed(error e) const {
    // Damage found while serving a read (a log that skipped recovery after a
    // clean shutdown): the client gets the error, never the bytes, and the
    // operator one line per log.
    if (e.code == error_code::kafka_storage_error || e.code == error_code::corrupt_message) {
        if (!_read_failure_logged.exchange(true)) {
            logging::storage().error("event=log_read_failed partition={} error=\"{}\"",
                                     _tp.to_string(), e.message);
        }
        return error{error_code::kafka_storage_error, e.message};
    }
    return e;
}

result<log_read> log::read(kafka_offset from, int64_t max_bytes,
                           std::optional<kafka_offset> max_offset, bool min_one_message) const {
    const int64_t offset = from.value();
    if (_failure) {
        return *_failure;
    }
    if (offset < _log_start_offset || offset > _log_end_offset) {
        return error{error_code::offset_out_of_range,
                     "offset " + std::to_string(offset) + " of " + _tp.to_string() +
                         " is outside the log [" + std::to_string(_log_start_offset) + ", " +
                         std::to_string(_log_end_offset) + "]"};
    }
    log_read out;
    out.log_start_offset = _log_start_offset;
    out.log_end_offset = _log_end_offset;
    out.high_watermark = _high_watermark;
    const int64_t bound =
        max_offset ? std::min(max_offset->value(), _log_end_offset) : _log_end_offset;
    if (offset >= bound) {
        return out;
    }
    auto it = _segments.upper_bound(offset);
    if (it != _segments.begin()) {
        --it;
    }
    for (; it != _segments.end() && it->first < bound; ++it) {
        const log_segment& seg = *it->second;
        int64_t max_position = -1;
        if (bound < seg.next_offset()) {
            auto loc = seg.translate_offset(bound);
            if (!loc) {
                return read_failed(loc.err());
            }
            max_position = *loc ? (*loc)->position : seg.size_bytes();
        }
        auto r = seg.read(offset, max_bytes, max_position, min_one_message);
        if (!r) {
            return read_failed(r.err());
        }
        if (*r) {
            out.records = (*r)->slice;
            return out;
        }
    }
    return out;
}

result<std::optional<timestamp_lookup>> log::offset_for_timestamp(int64_t ts) const {
    using out_t = std::optional<timestamp_lookup>;
    if (_failure) {
        return *_failure;
    }
    if (ts == latest_timestamp) {
        return out_t(timestamp_lookup{-1, _log_end_offset, _epochs.latest_epoch()});
    }
    if (ts == earliest_timestamp || ts == earliest_local_timestamp) {
        return out_t(
            timestamp_lookup{-1, _log_start_offset, _epochs.epoch_for_offset(_log_start_offset)});
    }
    if (ts == latest_tiered_timestamp) {
        return out_t();
    }
    if (ts == max_timestamp) {
        const log_segment* best = nullptr;
        for (const auto& [base, seg] : _segments) {
            if (seg->next_offset() > _log_start_offset && seg->max_timestamp() >= 0 &&
                (!best || seg->max_timestamp() > best->max_timestamp())) {
                best = seg.get();
            }
        }
        if (!best) {
            return out_t();
        }
        // The first record carrying the max timestamp, inside the batch the
        // segment remembers.
        ts = best->max_timestamp();
        auto r = best->find_offset_by_timestamp(ts, _log_start_offset);
        if (!r) {
            return r.err();
        }
        int64_t offset = *r ? (*r)->offset : best->offset_of_max_timestamp();
        return out_t(timestamp_lookup{ts, offset, _epochs.epoch_for_offset(offset)});
    }
    if (ts < 0) {
        return error{error_code::invalid_request, "unsupported timestamp " + std::to_string(ts)};
    }
    for (const auto& [base, seg] : _segments) {
        if (seg->next_offset() <= _log_start_offset || seg->max_timestamp() < ts) {
            continue;
        }
        auto r = seg->find_offset_by_timestamp(ts, _log_start_offset);
        if (!r) {
            return r.err();
        }
        if (*r) {
            return out_t(timestamp_lookup{(*r)->timestamp, (*r)->offset,
                                          _epochs.epoch_for_offset((*r)->offset)});
        }
    }
    return out_t();
}

status log::close(bool flush_first) {
    if (_closed) {
        return {};
    }
    status first;
    if (!_failure && flush_first) {
        // A clean shutdown's snapshot at the LEO spares the next start a replay.
        first = snapshot_producer_state_at(_log_end_offset);
        if (first) {
            first = flush();
        }
    }
    for (auto& [base, seg] : _segments) {
        auto s = seg->close();
        if (!s && first) {
            first = s;
        }
    }
    fail_waiters_from(0, error{error_code::kafka_storage_error, "log closed"});
    _after_flush = nullptr;
    _closed = true;
    _failure = error{error_code::kafka_storage_error, _tp.to_string() + " is closed"};
    return first;
}

result<std::string> log::close_and_rename_for_delete(int64_t now_ms) {
    // A failed log is deleted all the same: nothing of it is kept.
    (void)close(false);
    fs::path p(_dir);
    auto target = (p.parent_path() / delete_dir_name(_tp, random_unique_id())).string();
    if (::rename(_dir.c_str(), target.c_str()) != 0) {
        return io_error("rename", _dir, errno);
    }
    if (auto f = fsync_dir(p.parent_path().string()); !f) {
        return f.err();
    }
    _deletions->schedule_dir(target, now_ms + _config.file_delete_delay_ms);
    _dir = target;
    return target;
}

status log::rename_dir(const std::string& new_dir) {
    if (auto s = check_dir_online(); !s) {
        return s;
    }
    if (_flush_in_flight) {
        return error{error_code::kafka_storage_error,
                     "a flush of " + _dir + " is in flight; rename it after"};
    }
    if (::rename(_dir.c_str(), new_dir.c_str()) != 0) {
        return io_error("rename", _dir, errno);
    }
    const auto old_parent = fs::path(_dir).parent_path().string();
    _dir = new_dir;
    for (auto& [base, seg] : _segments) {
        seg->set_dir(_dir);
    }
    _epochs.set_path(path_join(_dir, leader_epoch_checkpoint_file));
    _producers.set_dir(_dir);
    if (auto s = fsync_dir(fs::path(_dir).parent_path().string()); !s) {
        return fail(s.err());
    }
    if (auto s = fsync_dir(old_parent); !s) {
        return fail(s.err());
    }
    return {};
}

}  // namespace samsa::storage
