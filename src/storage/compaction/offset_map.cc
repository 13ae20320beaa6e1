#include "storage/compaction/offset_map.h"

#include <xxhash.h>

#include <algorithm>

namespace samsa::storage::compaction {

offset_map::offset_map(size_t memory_bytes, double load_factor) {
    size_t slots = std::max<size_t>(2, memory_bytes / sizeof(slot));
    _slots.resize(slots);
    _max_entries = std::clamp<size_t>(size_t(double(slots) * load_factor), 1, slots - 1);
}

size_t offset_map::find(uint64_t hi, uint64_t lo) const {
    size_t i = size_t(lo % _slots.size());
    for (;;) {
        const slot& s = _slots[i];
        if (s.offset < 0 || (s.hi == hi && s.lo == lo)) {
            return i;
        }
        i = i + 1 == _slots.size() ? 0 : i + 1;
    }
}

bool offset_map::put(bytes_view key, int64_t offset) {
    XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
    slot& s = _slots[find(h.high64, h.low64)];
    if (s.offset < 0) {
        if (_size >= _max_entries) {
            return false;
        }
        ++_size;
        s.hi = h.high64;
        s.lo = h.low64;
    }
    s.offset = std::max(s.offset, offset);
    _latest = std::max(_latest, offset);
    return true;
}

int64_t offset_map::get(bytes_view key) const {
    XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
    return _slots[find(h.high64, h.low64)].offset;
}

void offset_map::clear() {
    std::fill(_slots.begin(), _slots.end(), slot{});
    _size = 0;
    _latest = -1;
}

}  // namespace samsa::storage::compaction
