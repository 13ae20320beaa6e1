#pragma once
// time_index: the sparse `.timeindex` file of a segment (Kafka's TimeIndex;
// format: docs/formats/index.md).
//
//   entry (12 bytes, big-endian):
//     0  int64  timestamp: the largest batch max timestamp in the segment so far
//     8  int32  relative offset of a batch that carries that timestamp
//
// An entry is added next to each offset index entry, and once more when the
// segment becomes inactive, but only when the timestamp grew; so timestamps
// strictly increase and relative offsets never decrease.
//
// Lookup: the greatest entry with timestamp <= target, or (-1, base offset).
// Every record with a timestamp >= target lies at or after that entry's batch,
// because no earlier batch reached the entry's timestamp.
//
// Invariant: no valid entry is all zeros (a preallocated tail is zeros; an
// entry (0, 0) could be valid but is then safely dropped: it is only a bound).
// Owned by the segment's owner thread and not thread-safe, except flush().
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "storage/index_file.h"

namespace samsa::storage {

inline constexpr int64_t no_timestamp = -1;

struct timestamp_offset {
    int64_t timestamp = no_timestamp;
    int64_t offset = 0;
    bool operator==(const timestamp_offset&) const = default;
};

class time_index {
  public:
    static constexpr size_t entry_size = 12;

    // As offset_index::open: CORRUPT_MESSAGE means "rebuild me".
    static result<std::unique_ptr<time_index>> open(const std::string& path, int64_t base_offset,
                                                    int64_t max_index_bytes, bool active);

    int64_t base_offset() const { return _base_offset; }
    size_t entries() const { return _file->entries(); }
    size_t max_entries() const { return _file->max_entries(); }
    // As Kafka's TimeIndex, one slot stays free for the final entry on roll.
    bool is_full() const { return _file->entries() + 1 >= _file->max_entries(); }
    int64_t file_size() const { return _file->file_size(); }
    const std::string& path() const { return _file->path(); }

    timestamp_offset entry(size_t i) const;
    // The last entry, or (-1, base offset).
    timestamp_offset last_entry() const;
    // Greatest entry with timestamp <= target, or (-1, base offset).
    timestamp_offset lookup(int64_t target_timestamp) const;

    // Appends (timestamp, offset) when timestamp > the last entry's. The offset
    // must not go back; unless `skip_full_check` the index must not be full
    // (the final entry on roll may use the slot kept for it).
    status maybe_append(int64_t timestamp, int64_t offset, bool skip_full_check = false);
    // Removes every entry with offset >= `offset`.
    void truncate_to(int64_t offset);
    void reset() { _file->set_entries(0); }
    // Offsets must lie below `next_offset`, the segment's end.
    status check_against_log(int64_t next_offset) const;

    status grow_to_max() { return _file->grow_to_max(); }
    status trim() { return _file->trim_to_entries(); }
    status flush() const { return _file->flush(); }
    status rename(const std::string& p) { return _file->rename(p); }
    void set_path(std::string p) { _file->set_path(std::move(p)); }
    status close(bool trim) { return _file->close(trim); }

  private:
    time_index(std::unique_ptr<index_file> f, int64_t base)
        : _file(std::move(f)), _base_offset(base) {}

    std::unique_ptr<index_file> _file;
    int64_t _base_offset;
};

}  // namespace samsa::storage
