#include "storage/log_segment.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <limits>
#include <random>

#include "record/batch_header.h"
#include "storage/record_search.h"
#include "storage/segment_name.h"

namespace samsa::storage {

namespace {

error corrupt(std::string what) {
    return error{error_code::corrupt_message, std::move(what)};
}

int64_t random_jitter(const log_config& c) {
    int64_t bound = std::min(c.segment_jitter_ms, c.segment_ms);
    if (bound <= 0) {
        return 0;
    }
    thread_local std::mt19937_64 rng{std::random_device{}()};
    return int64_t(rng() % uint64_t(bound));
}

status unlink_if_exists(const std::string& p) {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
        return io_error("unlink", p, errno);
    }
    return {};
}

}  // namespace

result<bytes> file_slice::read() const {
    bytes out(static_cast<size_t>(length));
    if (length == 0) {
        return out;
    }
    auto n = file->pread_full(out.data(), out.size(), position);
    if (!n) {
        return n.err();
    }
    if (*n != out.size()) {
        return error{error_code::kafka_storage_error,
                     "log file truncated under a read: " + file->path()};
    }
    return out;
}

log_segment::log_segment(std::string dir, int64_t base_offset, file_handle log,
                         const log_config& config, int64_t now_ms)
    : _dir(std::move(dir)),
      _base_offset(base_offset),
      _log_path(log.path()),
      _log(std::make_shared<file_handle>(std::move(log))),
      _next_offset(base_offset),
      _offset_of_max_timestamp(base_offset),
      _index_interval_bytes(config.index_interval_bytes),
      _created_ms(now_ms),
      _roll_jitter_ms(random_jitter(config)) {}

log_segment::~log_segment() = default;

void log_segment::set_dir(const std::string& dir) {
    auto rebase = [&](const std::string& p) {
        return path_join(dir, std::filesystem::path(p).filename().string());
    };
    _dir = dir;
    _log_path = rebase(_log_path);
    if (_offset_index) {
        _offset_index->set_path(rebase(_offset_index->path()));
    }
    if (_time_index) {
        _time_index->set_path(rebase(_time_index->path()));
    }
    _txn_index.set_path(rebase(_txn_index.path()));
}

std::string log_segment::file_path(std::string_view kind) const {
    return path_join(_dir, segment_file_name(_base_offset, kind)) + _suffix;
}

result<std::shared_ptr<log_segment>> log_segment::create(const std::string& dir,
                                                         int64_t base_offset,
                                                         const log_config& config, int64_t now_ms,
                                                         std::string_view name_suffix) {
    auto log = file_handle::open(
        path_join(dir, segment_file_name(base_offset, log_suffix)) + std::string(name_suffix),
        O_RDWR | O_CREAT | O_TRUNC);
    if (!log) {
        return log.err();
    }
    for (auto suffix : {index_suffix, time_index_suffix, txn_index_suffix}) {
        if (auto s = unlink_if_exists(path_join(dir, segment_file_name(base_offset, suffix)) +
                                      std::string(name_suffix));
            !s) {
            return s.err();
        }
    }
    std::shared_ptr<log_segment> seg(
        new log_segment(dir, base_offset, std::move(*log), config, now_ms));
    seg->_suffix = std::string(name_suffix);
    bool missing;
    if (auto s = seg->open_indexes(true, &missing, config); !s) {
        return s.err();
    }
    return seg;
}

void log_segment::index_batch(const record::batch_header& h, int64_t position) {
    if (h.max_timestamp > _max_timestamp) {
        _max_timestamp = h.max_timestamp;
        _offset_of_max_timestamp = h.last_offset();
    }
    if (_bytes_since_last_index_entry > _index_interval_bytes) {
        // Neither append can fail once the batch passed append()'s checks; a
        // full index only makes the tail sparser (and rolls the next append).
        if (!_offset_index->is_full()) {
            (void)_offset_index->append(h.last_offset(), int32_t(position));
        }
        if (!_time_index->is_full()) {
            (void)_time_index->maybe_append(_max_timestamp, _offset_of_max_timestamp);
        }
        _bytes_since_last_index_entry = 0;
    }
    _bytes_since_last_index_entry += int64_t(h.size_bytes());
}

status log_segment::append(bytes_view batches) {
    if (_deleted || !_offset_index) {
        return error{error_code::kafka_storage_error, "append to a closed segment " + _log_path};
    }
    // Check everything before writing anything.
    int64_t next = _next_offset;
    int64_t max_ts = -1;
    size_t pos = 0;
    while (pos < batches.size()) {
        if (batches.size() - pos < record::batch_header_size) {
            return corrupt("partial batch header");
        }
        auto h = record::decode_batch_header(batches.data() + pos);
        if (h.batch_length < int32_t(record::batch_header_size - record::log_overhead) ||
            h.size_bytes() > batches.size() - pos) {
            return corrupt("batch length " + std::to_string(h.batch_length) + " does not fit");
        }
        if (h.magic != record::current_magic || h.last_offset_delta < 0) {
            return corrupt("not a v2 batch");
        }
        if (h.base_offset < next || !_offset_index->can_hold(h.last_offset())) {
            return corrupt("offset " + std::to_string(h.base_offset) + " out of order in segment " +
                           std::to_string(_base_offset) + " (next " + std::to_string(next) + ")");
        }
        next = h.last_offset() + 1;
        max_ts = std::max(max_ts, h.max_timestamp);
        pos += h.size_bytes();
    }
    if (batches.empty()) {
        return {};
    }
    if (_size + int64_t(batches.size()) > max_segment_size) {
        return corrupt("segment would exceed 2 GiB");
    }
    if (auto s = _log->pwrite_all(batches.data(), batches.size(), _size); !s) {
        (void)_log->truncate(_size);  // best effort: no torn bytes past _size
        return s;
    }
    const bool verified_so_far = _crc_verified_end == _size;
    if (_size == 0) {
        _rolling_based_timestamp = max_ts;
    }
    pos = 0;
    while (pos < batches.size()) {
        auto h = record::decode_batch_header(batches.data() + pos);
        index_batch(h, _size + int64_t(pos));
        pos += h.size_bytes();
    }
    _size += int64_t(batches.size());
    _next_offset = next;
    if (verified_so_far) {
        _crc_verified_end = _size;  // validated before they were appended
    }
    return {};
}

result<std::optional<file_batch>> log_segment::translate_offset(int64_t offset,
                                                                int64_t start_position) const {
    // Fast path: the entry at or above `offset` names a batch whose last offset
    // reaches it; when that batch also starts at or below it, it is the one —
    // one header read instead of a scan (the common case of sequential fetches
    // of batches larger than index.interval.bytes).
    if (auto upper = _offset_index->lookup_upper(offset);
        upper && upper->position >= start_position) {
        uint8_t raw[record::batch_header_size];
        auto n = _log->pread_full(raw, sizeof raw, upper->position);
        if (!n) {
            return n.err();
        }
        if (*n == sizeof raw) {
            file_batch b{record::decode_batch_header(raw), upper->position};
            if (b.header.magic == record::current_magic && b.header.base_offset <= offset &&
                b.header.last_offset() >= offset &&
                b.header.batch_length >=
                    int32_t(record::batch_header_size - record::log_overhead) &&
                b.end() <= _size) {
                return std::optional<file_batch>(b);
            }
        }
    }
    auto mapping = _offset_index->lookup(offset);
    file_batch_reader reader(*_log, std::max<int64_t>(mapping.position, start_position), _size);
    for (;;) {
        auto b = reader.next();
        if (!b) {
            return b.err();
        }
        if (!*b) {
            break;
        }
        if ((*b)->header.last_offset() >= offset) {
            return *b;
        }
    }
    if (reader.stop() != scan_stop::end) {
        return error{error_code::kafka_storage_error, _log_path + ": " + reader.stop_reason()};
    }
    return std::optional<file_batch>();
}

result<std::optional<log_segment::read_result>> log_segment::read(int64_t start_offset,
                                                                  int64_t max_bytes,
                                                                  int64_t max_position,
                                                                  bool min_one_message) const {
    using out_t = std::optional<read_result>;
    if (max_bytes < 0) {
        return error{error_code::invalid_request, "negative max bytes"};
    }
    auto loc = translate_offset(start_offset);
    if (!loc) {
        return loc.err();
    }
    if (!*loc) {
        return out_t();
    }
    const file_batch& first = **loc;
    if (max_position < 0 || max_position > _size) {
        max_position = _size;
    }
    int64_t adjusted = min_one_message ? std::max(max_bytes, first.size()) : max_bytes;
    int64_t length = std::max<int64_t>(0, std::min(max_position - first.position, adjusted));
    if (first.position + length > _crc_verified_end) {
        // Serve the good batches before a damaged one; the damaged one itself
        // is refused when a read reaches it.
        auto bad = verify_crcs(first.position, first.position + length);
        if (!bad) {
            return bad.err();
        }
        if (bad->has_value()) {
            if (**bad <= first.position) {
                return error{error_code::kafka_storage_error,
                             _log_path + ": batch at position " + std::to_string(**bad) +
                                 " fails its CRC check (found serving a read)"};
            }
            length = **bad - first.position;
        }
    }
    return out_t(read_result{file_slice{_log, first.position, length}, first.header.base_offset});
}

result<std::optional<int64_t>> log_segment::verify_crcs(int64_t from, int64_t to) const {
    const bool extends = from <= _crc_verified_end;
    int64_t start = extends ? _crc_verified_end : from;
    file_batch_reader reader(*_log, start, std::min(to, _size), {.verify_crc = true});
    for (;;) {
        auto b = reader.next();
        if (!b) {
            return b.err();
        }
        if (!*b) {
            break;
        }
    }
    if (extends) {
        _crc_verified_end = std::max(_crc_verified_end, reader.valid_end());
    }
    // A batch the read cuts short (max_bytes) is checked by a later read.
    if (reader.stop() == scan_stop::corrupt) {
        return std::optional<int64_t>(reader.valid_end());
    }
    return std::optional<int64_t>();
}

result<std::optional<timestamp_offset>> log_segment::find_offset_by_timestamp(
    int64_t timestamp, int64_t starting_offset) const {
    using out_t = std::optional<timestamp_offset>;
    auto t = _time_index->lookup(timestamp);
    int64_t from = _offset_index->lookup(std::max(t.offset, starting_offset)).position;
    file_batch_reader reader(*_log, from, _size);
    bytes buf;
    for (;;) {
        auto b = reader.next();
        if (!b) {
            return b.err();
        }
        if (!*b) {
            break;
        }
        const file_batch& fb = **b;
        if (fb.header.max_timestamp < timestamp || fb.header.last_offset() < starting_offset) {
            continue;
        }
        buf.resize(size_t(fb.size()));
        auto n = _log->pread_full(buf.data(), buf.size(), fb.position);
        if (!n) {
            return n.err();
        }
        if (*n != buf.size()) {
            return error{error_code::kafka_storage_error, "short read of " + _log_path};
        }
        auto r = find_first_record_at_or_after(buf, timestamp, starting_offset);
        if (!r) {
            return r.err();
        }
        if (*r) {
            return out_t(timestamp_offset{(*r)->timestamp, (*r)->offset});
        }
    }
    return out_t();
}

result<int64_t> log_segment::truncate_to(int64_t offset) {
    auto loc = translate_offset(offset);
    if (!loc) {
        return loc.err();
    }
    if (!*loc) {
        return int64_t(0);
    }
    int64_t new_size = (*loc)->position;
    _offset_index->truncate_to(offset);
    _time_index->truncate_to(offset);
    if (auto s = _txn_index.truncate_to(offset); !s) {
        return s.err();
    }
    if (auto s = _log->truncate(new_size); !s) {
        return s.err();
    }
    int64_t removed = _size - new_size;
    _size = new_size;
    _crc_verified_end = std::min(_crc_verified_end, _size);
    _max_timestamp = -1;
    _offset_of_max_timestamp = _base_offset;
    if (_size == 0) {
        _rolling_based_timestamp.reset();
    }
    if (auto s = load_tail_state(); !s) {
        return s.err();
    }
    return removed;
}

bool log_segment::should_roll(const log_config& config, int64_t bytes, int64_t max_ts_in,
                              int64_t last_offset_in, int64_t now_ms) const {
    int64_t waited = (_rolling_based_timestamp && *_rolling_based_timestamp >= 0)
                         ? max_ts_in - *_rolling_based_timestamp
                         : now_ms - _created_ms;
    bool reached_time = _size > 0 && waited > config.segment_ms - _roll_jitter_ms;
    int64_t limit = std::min(config.segment_bytes, max_segment_size);
    return _size > limit - bytes || reached_time || _offset_index->is_full() ||
           _time_index->is_full() || !_offset_index->can_hold(last_offset_in);
}

int64_t log_segment::largest_timestamp() const {
    if (_max_timestamp >= 0) {
        return _max_timestamp;
    }
    struct stat st;
    if (::fstat(_log->fd(), &st) != 0) {
        return 0;
    }
    return int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

status log_segment::on_become_inactive() {
    _active = false;
    if (auto s = _time_index->maybe_append(_max_timestamp, _offset_of_max_timestamp, true); !s) {
        return s;
    }
    if (auto s = _offset_index->trim(); !s) {
        return s;
    }
    return _time_index->trim();
}

status log_segment::on_become_active() {
    _active = true;
    if (auto s = _offset_index->grow_to_max(); !s) {
        return s;
    }
    return _time_index->grow_to_max();
}

status log_segment::flush() const {
    std::lock_guard lock(_lifecycle);
    if (!_offset_index || _deleted) {
        return {};
    }
    if (auto s = _log->datasync(); !s) {
        return s;
    }
    if (auto s = _offset_index->flush(); !s) {
        return s;
    }
    if (auto s = _txn_index.flush(); !s) {
        return s;
    }
    return _time_index->flush();
}

status log_segment::append_aborted_txn(const aborted_txn& t) {
    // Under the lifecycle lock: a background flush() may look at the file.
    std::lock_guard lock(_lifecycle);
    return _txn_index.append(t);
}

status log_segment::close() {
    std::lock_guard lock(_lifecycle);
    if (!_offset_index) {
        return {};
    }
    status result;
    if (!_deleted) {
        result = _time_index->maybe_append(_max_timestamp, _offset_of_max_timestamp, true);
    }
    auto s1 = _offset_index->close(!_deleted);
    auto s2 = _time_index->close(!_deleted);
    (void)_txn_index.close();
    _offset_index.reset();
    _time_index.reset();
    _log.reset();  // the fd closes when the last reader lets go
    if (!result) {
        return result;
    }
    return s1 ? s2 : s1;
}

status log_segment::rename_to_deleted() {
    if (_deleted) {
        return {};
    }
    std::string new_log = _log_path + std::string(deleted_suffix);
    if (::rename(_log_path.c_str(), new_log.c_str()) != 0) {
        return io_error("rename", _log_path, errno);
    }
    _log_path = new_log;
    if (_offset_index) {
        if (auto s = _offset_index->rename(_offset_index->path() + std::string(deleted_suffix));
            !s) {
            return s;
        }
        if (auto s = _time_index->rename(_time_index->path() + std::string(deleted_suffix)); !s) {
            return s;
        }
    }
    if (auto s = _txn_index.rename(_txn_index.path() + std::string(deleted_suffix)); !s) {
        return s;
    }
    _deleted = true;
    return {};
}

status log_segment::change_suffix(std::string_view suffix) {
    std::lock_guard lock(_lifecycle);
    if (_deleted) {
        return error{error_code::kafka_storage_error, "rename of a deleted segment " + _log_path};
    }
    const std::string next(suffix);
    auto renamed = [&](std::string_view kind) {
        return path_join(_dir, segment_file_name(_base_offset, kind)) + next;
    };
    if (_offset_index) {
        if (auto s = _offset_index->rename(renamed(index_suffix)); !s) {
            return s;
        }
        if (auto s = _time_index->rename(renamed(time_index_suffix)); !s) {
            return s;
        }
    }
    if (auto s = _txn_index.rename(renamed(txn_index_suffix)); !s) {
        return s;
    }
    auto log_path = renamed(log_suffix);
    if (::rename(_log_path.c_str(), log_path.c_str()) != 0) {
        return io_error("rename", _log_path, errno);
    }
    _log_path = log_path;
    _suffix = next;
    return {};
}

status log_segment::delete_files() {
    std::lock_guard lock(_lifecycle);
    std::string suffix = _deleted ? std::string(deleted_suffix) : std::string();
    std::string paths[4] = {
        _log_path,
        file_path(index_suffix) + suffix,
        file_path(time_index_suffix) + suffix,
        file_path(txn_index_suffix) + suffix,
    };
    (void)_txn_index.close();
    if (_offset_index) {
        (void)_offset_index->close(false);
        (void)_time_index->close(false);
        _offset_index.reset();
        _time_index.reset();
    }
    _log.reset();
    _deleted = true;
    for (const auto& p : paths) {
        if (auto s = unlink_if_exists(p); !s) {
            return s;
        }
    }
    return {};
}

}  // namespace samsa::storage
