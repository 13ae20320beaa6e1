#include "storage/time_index.h"

#include <algorithm>
#include <limits>

#include "common/bytes.h"

namespace samsa::storage {

namespace {

error corrupt(const std::string& path, std::string what) {
    return error{error_code::corrupt_message, "corrupt time index " + path + ": " + what};
}

int64_t ts_at(const uint8_t* p) {
    return int64_t(load_be64(p));
}
int64_t rel_at(const uint8_t* p) {
    return int32_t(load_be32(p + 8));
}

}  // namespace

result<std::unique_ptr<time_index>> time_index::open(const std::string& path, int64_t base_offset,
                                                     int64_t max_index_bytes, bool active) {
    auto f = index_file::open(path, entry_size, max_index_bytes, active);
    if (!f) {
        return f.err();
    }
    index_file& file = **f;
    if (file.file_size() % int64_t(entry_size) != 0) {
        return corrupt(path, "size " + std::to_string(file.file_size()) + " is not a multiple of " +
                                 std::to_string(entry_size));
    }
    size_t slots = file.was_empty() ? 0 : file.file_slots();
    size_t n = 0;
    int64_t prev_ts = -1;
    int64_t prev_rel = 0;
    const size_t leading = std::min(slots, file.data_end_slot(0));  // not into holes
    for (; n < leading; ++n) {
        const uint8_t* p = file.entry_ptr(n);
        int64_t ts = ts_at(p);
        int64_t rel = rel_at(p);
        bool zero = ts == 0 && rel == 0;
        if (zero || ts <= prev_ts || rel < prev_rel) {
            break;
        }
        prev_ts = ts;
        prev_rel = rel;
    }
    if (auto bad = n < slots ? file.first_nonzero_slot(n) : std::nullopt; bad && *bad < slots) {
        return corrupt(path, "entry " + std::to_string(*bad) + " is out of order");
    }
    file.set_entries(n);
    auto idx = std::unique_ptr<time_index>(new time_index(std::move(*f), base_offset));
    if (active) {
        if (auto s = idx->grow_to_max(); !s) {
            return s.err();
        }
    }
    return idx;
}

timestamp_offset time_index::entry(size_t i) const {
    const uint8_t* p = _file->entry_ptr(i);
    return {ts_at(p), _base_offset + rel_at(p)};
}

timestamp_offset time_index::last_entry() const {
    size_t n = entries();
    return n == 0 ? timestamp_offset{no_timestamp, _base_offset} : entry(n - 1);
}

timestamp_offset time_index::lookup(int64_t target) const {
    size_t lo = 0;
    size_t hi = entries();
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ts_at(_file->entry_ptr(mid)) <= target) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0) {
        return {no_timestamp, _base_offset};
    }
    return entry(lo - 1);
}

status time_index::maybe_append(int64_t timestamp, int64_t offset, bool skip_full_check) {
    if (!skip_full_check && is_full()) {
        return corrupt(path(), "append to a full index");
    }
    auto last = last_entry();
    if (entries() > 0 && offset < last.offset) {
        return corrupt(path(), "offset " + std::to_string(offset) + " is before " +
                                   std::to_string(last.offset));
    }
    if (timestamp <= last.timestamp) {
        return {};
    }
    int64_t rel = offset - _base_offset;
    if (rel < 0 || rel > std::numeric_limits<int32_t>::max()) {
        return corrupt(path(), "offset " + std::to_string(offset) + " does not fit");
    }
    if (entries() >= _file->file_slots()) {
        // Only the final entry on roll can get here with a full index; there is
        // no slot left in the file, so the entry is dropped (it is only a bound).
        return {};
    }
    uint8_t e[entry_size];
    store_be64(e, uint64_t(timestamp));
    store_be32(e + 8, uint32_t(rel));
    return _file->push_back(e);
}

void time_index::truncate_to(int64_t offset) {
    int64_t rel = offset - _base_offset;
    size_t lo = 0;
    size_t hi = entries();
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rel_at(_file->entry_ptr(mid)) < rel) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    _file->set_entries(lo);
}

status time_index::check_against_log(int64_t next_offset) const {
    if (entries() > 0 && last_entry().offset >= next_offset) {
        return corrupt(path(), "last entry offset " + std::to_string(last_entry().offset) +
                                   " is past the log's end " + std::to_string(next_offset));
    }
    return {};
}

}  // namespace samsa::storage
