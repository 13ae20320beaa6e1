#include "storage/offset_index.h"

#include <algorithm>
#include <limits>

#include "common/bytes.h"

namespace samsa::storage {

namespace {

error corrupt(const std::string& path, std::string what) {
    return error{error_code::corrupt_message, "corrupt offset index " + path + ": " + what};
}

}  // namespace

result<std::unique_ptr<offset_index>> offset_index::open(const std::string& path,
                                                         int64_t base_offset,
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
    // Leading valid entries, then nothing but zeros.
    size_t slots = file.was_empty() ? 0 : file.file_slots();
    size_t n = 0;
    int64_t prev_rel = -1;
    int64_t prev_pos = 0;
    const size_t leading = std::min(slots, file.data_end_slot(0));  // not into holes
    for (; n < leading; ++n) {
        const uint8_t* p = file.entry_ptr(n);
        int64_t rel = int32_t(load_be32(p));
        int64_t pos = int32_t(load_be32(p + 4));
        if (pos <= prev_pos || rel <= prev_rel) {
            break;
        }
        prev_rel = rel;
        prev_pos = pos;
    }
    if (auto bad = n < slots ? file.first_nonzero_slot(n) : std::nullopt; bad && *bad < slots) {
        return corrupt(path, "entry " + std::to_string(*bad) + " is out of order");
    }
    file.set_entries(n);
    auto idx = std::unique_ptr<offset_index>(new offset_index(std::move(*f), base_offset));
    if (active) {
        if (auto s = idx->grow_to_max(); !s) {
            return s.err();
        }
    }
    return idx;
}

int32_t offset_index::relative(size_t i) const {
    return int32_t(load_be32(_file->entry_ptr(i)));
}
int32_t offset_index::position(size_t i) const {
    return int32_t(load_be32(_file->entry_ptr(i) + 4));
}

offset_position offset_index::entry(size_t i) const {
    return {_base_offset + relative(i), position(i)};
}

offset_position offset_index::last_entry() const {
    size_t n = entries();
    return n == 0 ? offset_position{_base_offset, 0} : entry(n - 1);
}

offset_position offset_index::lookup(int64_t target) const {
    if (target < _base_offset) {
        return {_base_offset, 0};
    }
    int64_t rel = target - _base_offset;
    // Greatest i with relative(i) <= rel.
    size_t lo = 0;
    size_t hi = entries();
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (relative(mid) <= rel) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0) {
        return {_base_offset, 0};
    }
    return entry(lo - 1);
}

std::optional<offset_position> offset_index::lookup_upper(int64_t target) const {
    int64_t rel = target - _base_offset;
    size_t lo = 0;
    size_t hi = entries();
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (relative(mid) < rel) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == entries()) {
        return std::nullopt;
    }
    return entry(lo);
}

bool offset_index::can_hold(int64_t offset) const {
    int64_t rel = offset - _base_offset;
    return rel >= 0 && rel <= std::numeric_limits<int32_t>::max();
}

status offset_index::append(int64_t offset, int32_t pos) {
    if (is_full()) {
        return corrupt(path(), "append to a full index");
    }
    if (!can_hold(offset) || pos <= 0) {
        return corrupt(path(), "entry (" + std::to_string(offset) + ", " + std::to_string(pos) +
                                   ") does not fit");
    }
    size_t n = entries();
    if (n > 0) {
        auto last = entry(n - 1);
        if (offset <= last.offset || pos <= last.position) {
            return corrupt(path(), "entry (" + std::to_string(offset) + ", " + std::to_string(pos) +
                                       ") is not after (" + std::to_string(last.offset) + ", " +
                                       std::to_string(last.position) + ")");
        }
    }
    uint8_t e[entry_size];
    store_be32(e, uint32_t(offset - _base_offset));
    store_be32(e + 4, uint32_t(pos));
    return _file->push_back(e);
}

void offset_index::truncate_to(int64_t offset) {
    int64_t rel = offset - _base_offset;
    size_t n = entries();
    // Keep entries with relative offset < rel: the first one to drop is found by
    // binary search.
    size_t lo = 0;
    size_t hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (relative(mid) < rel) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    _file->set_entries(lo);
}

status offset_index::check_against_log(int64_t log_size) const {
    size_t n = entries();
    if (n > 0 && last_entry().position >= log_size) {
        return corrupt(path(), "last entry position " + std::to_string(last_entry().position) +
                                   " is past the log's end " + std::to_string(log_size));
    }
    return {};
}

}  // namespace samsa::storage
