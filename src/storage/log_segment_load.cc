// log_segment: opening an existing segment — index checks, the tail scan that
// finds the next offset, and recovery (docs/formats/segment.md, "Recovery").
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "record/batch_header.h"
#include "storage/log_segment.h"
#include "storage/segment_name.h"

namespace samsa::storage {

namespace {

error corrupt(std::string what) {
    return error{error_code::corrupt_message, std::move(what)};
}

bool file_exists(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0;
}

status unlink_if_exists(const std::string& p) {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
        return io_error("unlink", p, errno);
    }
    return {};
}

// Copies [from, to) of `file` to `<path>.<unix ms>.corrupt` (durably) and
// returns that path: what recovery cuts after a corrupt batch stays on disk
// for an operator (or a tool) to look at.
result<std::string> keep_corrupt_bytes(const file_handle& file, const std::string& path,
                                       int64_t from, int64_t to) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    std::string kept = path + "." + std::to_string(ms) + std::string(corrupt_suffix);
    auto out = file_handle::open(kept, O_RDWR | O_CREAT | O_TRUNC);
    if (!out) {
        return out.err();
    }
    bytes buf(1 << 20);
    for (int64_t pos = from; pos < to;) {
        size_t n = size_t(std::min<int64_t>(int64_t(buf.size()), to - pos));
        auto got = file.pread_full(buf.data(), n, pos);
        if (!got) {
            return got.err();
        }
        if (*got == 0) {
            break;
        }
        if (auto s = out->pwrite_all(buf.data(), *got, pos - from); !s) {
            return s.err();
        }
        pos += int64_t(*got);
    }
    if (auto s = out->datasync(); !s) {
        return s.err();
    }
    return kept;
}

}  // namespace

status log_segment::open_indexes(bool active, bool* missing, const log_config& config) {
    auto index_path = file_path(index_suffix);
    auto time_path = file_path(time_index_suffix);
    *missing = !file_exists(index_path) || !file_exists(time_path);
    auto oi = offset_index::open(index_path, _base_offset, config.segment_index_bytes, active);
    if (!oi && oi.err().code == error_code::corrupt_message) {
        // Rebuilt by the caller from the .log.
        *missing = true;
        if (auto s = unlink_if_exists(index_path); !s) {
            return s;
        }
        oi = offset_index::open(index_path, _base_offset, config.segment_index_bytes, active);
    }
    if (!oi) {
        return oi.err();
    }
    auto ti = time_index::open(time_path, _base_offset, config.segment_index_bytes, active);
    if (!ti && ti.err().code == error_code::corrupt_message) {
        *missing = true;
        if (auto s = unlink_if_exists(time_path); !s) {
            return s;
        }
        ti = time_index::open(time_path, _base_offset, config.segment_index_bytes, active);
    }
    if (!ti) {
        return ti.err();
    }
    auto txn = transaction_index::open(file_path(txn_index_suffix));
    if (!txn) {
        return txn.err();
    }
    _offset_index = std::move(*oi);
    _time_index = std::move(*ti);
    _txn_index = std::move(*txn);
    return {};
}

result<std::shared_ptr<log_segment>> log_segment::open(const std::string& dir, int64_t base_offset,
                                                       const log_config& config, int64_t now_ms,
                                                       bool active, bool needs_recovery,
                                                       segment_recovery* recovery) {
    auto log =
        file_handle::open(path_join(dir, segment_file_name(base_offset, log_suffix)), O_RDWR);
    if (!log) {
        return log.err();
    }
    auto size = log->size();
    if (!size) {
        return size.err();
    }
    std::shared_ptr<log_segment> seg(
        new log_segment(dir, base_offset, std::move(*log), config, now_ms));
    seg->_size = *size;
    seg->_active = active;
    bool missing = false;
    if (auto s = seg->open_indexes(active, &missing, config); !s) {
        return s.err();
    }
    bool recover = needs_recovery || (missing && seg->_size > 0) || *size > max_segment_size;
    if (!recover) {
        auto s = seg->load_tail_state();
        if (!s && s.code() != error_code::corrupt_message) {
            return s.err();
        }
        recover = !s;
    }
    if (recover) {
        auto r = seg->recover();
        if (!r) {
            return r.err();
        }
        if (recovery) {
            *recovery = *r;
        }
        seg->_crc_verified_end = seg->_size;  // recovery checked every CRC
    } else if (recovery) {
        *recovery = segment_recovery{};
        recovery->valid_bytes = seg->_size;
    }
    if (!seg->_rolling_based_timestamp && seg->_size > 0) {
        uint8_t h[record::batch_header_size];
        auto n = seg->_log->pread_full(h, sizeof h, 0);
        if (!n) {
            return n.err();
        }
        if (*n == sizeof h) {
            seg->_rolling_based_timestamp = record::decode_batch_header(h).max_timestamp;
        }
    }
    return seg;
}

status log_segment::load_tail_state() {
    if (auto s = _offset_index->check_against_log(_size); !s) {
        return s;
    }
    auto last = _offset_index->last_entry();
    int64_t from = last.position;
    if (_time_index->entries() > 0) {
        auto t = _time_index->last_entry();
        _max_timestamp = t.timestamp;
        _offset_of_max_timestamp = t.offset;
        from = std::min<int64_t>(from, _offset_index->lookup(t.offset).position);
    }
    int64_t next = _base_offset;
    file_batch_reader reader(*_log, from, _size);
    for (;;) {
        auto b = reader.next();
        if (!b) {
            return b.err();
        }
        if (!*b) {
            break;
        }
        const auto& h = (*b)->header;
        if (h.base_offset < next) {
            return corrupt("offsets go back at position " + std::to_string((*b)->position));
        }
        if (h.max_timestamp > _max_timestamp) {
            _max_timestamp = h.max_timestamp;
            _offset_of_max_timestamp = h.last_offset();
        }
        next = h.last_offset() + 1;
    }
    if (reader.stop() != scan_stop::end) {
        return corrupt(_log_path + ": " + reader.stop_reason());
    }
    _next_offset = std::max(next, _base_offset);
    _bytes_since_last_index_entry = _size - last.position;
    return _time_index->check_against_log(_next_offset);
}

result<segment_recovery> log_segment::recover() {
    auto file_size = _log->size();
    if (!file_size) {
        return file_size.err();
    }
    for (auto s : {_offset_index->grow_to_max(), _time_index->grow_to_max()}) {
        if (!s) {
            return s.err();
        }
    }
    _offset_index->reset();
    _time_index->reset();
    _max_timestamp = -1;
    _offset_of_max_timestamp = _base_offset;
    _bytes_since_last_index_entry = 0;
    _rolling_based_timestamp.reset();
    int64_t end = std::min(*file_size, max_segment_size);
    int64_t next = _base_offset;
    file_batch_reader reader(*_log, 0, end, {.verify_crc = true});
    int64_t valid = 0;
    std::string reason;
    std::vector<epoch_entry> epoch_starts;
    for (;;) {
        auto b = reader.next();
        if (!b) {
            return b.err();
        }
        if (!*b) {
            valid = reader.valid_end();
            reason = reader.stop_reason();
            break;
        }
        const auto& h = (*b)->header;
        if (h.base_offset < next || !_offset_index->can_hold(h.last_offset())) {
            valid = (*b)->position;
            reason = "offset " + std::to_string(h.base_offset) + " out of order at position " +
                     std::to_string(valid);
            break;
        }
        if ((*b)->position == 0) {
            _rolling_based_timestamp = h.max_timestamp;
        }
        index_batch(h, (*b)->position);
        next = h.last_offset() + 1;
        if (h.partition_leader_epoch >= 0 &&
            (epoch_starts.empty() || h.partition_leader_epoch > epoch_starts.back().epoch)) {
            epoch_starts.push_back({h.partition_leader_epoch, h.base_offset});
        }
    }
    if (reason.empty() && end < *file_size) {
        reason = "segment larger than 2 GiB";
    }
    segment_recovery out;
    out.valid_bytes = valid;
    out.truncated_bytes = *file_size - valid;
    out.next_offset = next;
    out.epoch_starts = std::move(epoch_starts);
    if (out.truncated_bytes > 0) {
        out.reason = reason;
        // A batch cut short by the end of the file is what a crash mid-write
        // leaves; anything else is corruption. Either way the cut bytes are
        // kept beside the segment, never dropped: a damaged length field looks
        // like a torn tail too, and what follows it may be acknowledged records.
        out.corrupt = reader.stop() != scan_stop::truncated;
        auto kept = keep_corrupt_bytes(*_log, _log_path, valid, *file_size);
        if (!kept) {
            return kept.err();
        }
        out.kept_as = *kept;
        if (auto s = _log->truncate(valid); !s) {
            return s.err();
        }
    }
    _size = valid;
    _next_offset = next;
    // Markers past the valid end are gone; the log's producer state replay
    // re-adds any entry the crash lost (duplicates are ignored).
    if (auto s = _txn_index.truncate_to(next); !s) {
        return s.err();
    }
    if (!_active) {
        for (auto s : {_offset_index->trim(), _time_index->trim()}) {
            if (!s) {
                return s.err();
            }
        }
    }
    return out;
}

}  // namespace samsa::storage
