#pragma once
// offset_map: the cleaner's dedupe buffer (Kafka's SkimpyOffsetMap): for each
// key seen in the dirty part of a log, the offset of its latest record.
//
// Keys are not stored, only a 128-bit XXH3 hash of each: two keys would have
// to collide in 128 bits for the cleaner to drop a record it should keep. The
// table is open addressing with linear probing in one flat allocation, sized
// from log.cleaner.dedupe.buffer.size (divided among the cleaner threads) at
// 24 bytes a slot, and filled at most to log.cleaner.io.buffer.load.factor.
//
// Not thread-safe: each cleaner thread owns one.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/bytes.h"

namespace samsa::storage::compaction {

class offset_map {
  public:
    offset_map(size_t memory_bytes, double load_factor);

    // Records `offset` as the latest for `key` (a later put for the same key
    // wins). false when the map is full and the key is new: nothing changed.
    bool put(bytes_view key, int64_t offset);
    // The latest offset put for `key`; -1 when none.
    int64_t get(bytes_view key) const;

    size_t size() const { return _size; }
    // Keys it takes before put() refuses new ones.
    size_t capacity() const { return _max_entries; }
    size_t free_entries() const { return _max_entries - _size; }
    // The largest offset put since clear(); -1 when none.
    int64_t latest_offset() const { return _latest; }
    void clear();

  private:
    struct slot {
        uint64_t hi = 0;
        uint64_t lo = 0;
        int64_t offset = -1;  // -1: empty
    };
    size_t find(uint64_t hi, uint64_t lo) const;

    std::vector<slot> _slots;
    size_t _max_entries = 0;
    size_t _size = 0;
    int64_t _latest = -1;
};

}  // namespace samsa::storage::compaction
