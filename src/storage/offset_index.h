#pragma once
// offset_index: the sparse `.index` file of a segment, mapping offsets to byte
// positions in its `.log` (Kafka's OffsetIndex; format: docs/formats/index.md).
//
//   entry (8 bytes, big-endian), one per index.interval.bytes of log:
//     0  int32  relative offset = offset - segment base offset
//     4  int32  position of a batch in the .log
//
// As in Kafka, an entry is (last offset of a batch, position of that batch's
// first byte); it is added before appending a batch once more than
// index.interval.bytes were appended since the previous entry, so the first
// batch (position 0) never has one.
//
// Invariants: relative offsets and positions strictly increase; no valid entry is
// all zeros (its position would be 0), which is how a preallocated file left by
// a crash is told apart from its zero tail.
//
// Lookup (Kafka's rule, seed 003): binary search for the greatest entry whose
// offset <= target, then scan the .log forward from its position; with no such
// entry, scan from (base offset, position 0). Worked example: in segment
// 00000000000000170410, entry (3, 348) is offset 170413 at position 348.
//
// Owned by the segment's owner thread and not thread-safe, except flush().
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "storage/index_file.h"

namespace samsa::storage {

struct offset_position {
    int64_t offset = 0;
    int32_t position = 0;
    bool operator==(const offset_position&) const = default;
};

class offset_index {
  public:
    static constexpr size_t entry_size = 8;

    // Opens (or creates) `path`. Validates an existing file: its size must be a
    // multiple of 8 and its entries increasing, followed only by zeros. A
    // CORRUPT_MESSAGE error means "rebuild me"; KAFKA_STORAGE_ERROR is I/O.
    // A new file is preallocated to max_index_bytes when `active`.
    static result<std::unique_ptr<offset_index>> open(const std::string& path, int64_t base_offset,
                                                      int64_t max_index_bytes, bool active);

    int64_t base_offset() const { return _base_offset; }
    size_t entries() const { return _file->entries(); }
    size_t max_entries() const { return _file->max_entries(); }
    bool is_full() const { return _file->is_full(); }
    int64_t file_size() const { return _file->file_size(); }
    const std::string& path() const { return _file->path(); }

    offset_position entry(size_t i) const;
    // The last entry, or (base offset, 0) when there is none.
    offset_position last_entry() const;
    // Greatest entry with offset <= target, or (base offset, 0).
    offset_position lookup(int64_t target) const;
    // Smallest entry with offset >= target, if any: the batch holding `target`
    // is at or before its position (a fast path for translation, which checks
    // that batch first).
    std::optional<offset_position> lookup_upper(int64_t target) const;

    // Whether `offset` fits a relative offset of this index.
    bool can_hold(int64_t offset) const;
    // Appends (offset, position); both must exceed the last entry's, the index
    // must not be full, and `position` > 0. CORRUPT_MESSAGE otherwise.
    status append(int64_t offset, int32_t position);
    // Removes every entry with offset >= `offset`.
    void truncate_to(int64_t offset);
    void reset() { _file->set_entries(0); }
    // Checks the entries against the .log they index: positions < log_size.
    status check_against_log(int64_t log_size) const;

    status grow_to_max() { return _file->grow_to_max(); }
    status trim() { return _file->trim_to_entries(); }
    status flush() const { return _file->flush(); }
    status rename(const std::string& p) { return _file->rename(p); }
    void set_path(std::string p) { _file->set_path(std::move(p)); }
    status close(bool trim) { return _file->close(trim); }

  private:
    offset_index(std::unique_ptr<index_file> f, int64_t base)
        : _file(std::move(f)), _base_offset(base) {}
    int32_t relative(size_t i) const;
    int32_t position(size_t i) const;

    std::unique_ptr<index_file> _file;
    int64_t _base_offset;
};

}  // namespace samsa::storage
