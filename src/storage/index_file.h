#pragma once
// index_file: the memory-mapped, preallocated file under offset_index and
// time_index. Both are arrays of fixed-size big-endian entries; this class owns
// the file, the mapping and the entry count, and knows nothing of the layout.
//
// Lifecycle of the file size (Kafka's AbstractIndex):
//  * active segment: preallocated sparsely (ftruncate, as Kafka's setLength) to
//    max_bytes rounded down to a whole number of entries, so an idle partition
//    costs no index disk; push_back reserves real blocks (fallocate, a page at
//    a time) before it stores into them, so a full disk is an error value and
//    never a SIGBUS on a store into a hole of the mapping;
//  * on roll, close or shutdown: trimmed to entries * entry_size;
//  * an active segment that crashed leaves a preallocated file: its entries are
//    the leading valid ones, followed by zeros (see count_entries()).
//
// The mapping is made once, at its largest size, and never moves: trimming and
// growing only change the file size. That lets flush() (fdatasync of the fd, which
// also writes back pages dirtied through the mapping) run on another thread while
// the owner keeps appending.
//
// Invariant: file size >= entries() * entry_size, so no access to the mapping
// ever touches a page past end of file.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "storage/file_util.h"

namespace samsa::storage {

class index_file {
  public:
    // Opens or creates `path`. The file keeps its size (an existing file is not
    // grown until grow_to_max()); a new file is preallocated when `preallocate`.
    static result<std::unique_ptr<index_file>> open(const std::string& path, size_t entry_size,
                                                    int64_t max_bytes, bool preallocate);
    ~index_file();
    index_file(const index_file&) = delete;
    index_file& operator=(const index_file&) = delete;

    size_t entry_size() const { return _entry_size; }
    size_t entries() const { return _entries; }
    size_t max_entries() const { return _max_entries; }
    bool is_full() const { return _entries >= _max_entries; }
    int64_t file_size() const { return _file_size; }
    // The file was empty when opened (new): nothing to validate.
    bool was_empty() const { return _was_empty; }
    const std::string& path() const { return _file.path(); }

    // Entry i's bytes; i < entries() (or < slots in the file, for validation).
    const uint8_t* entry_ptr(size_t i) const { return _map + i * _entry_size; }
    // Slots the file currently holds, valid or not.
    size_t file_slots() const { return size_t(_file_size) / _entry_size; }
    // Validation skips the holes of a sparse file (they read as zeros): on
    // tmpfs, reading a hole through the mapping allocates memory, and on a
    // full one that is a SIGBUS. The first slot at or after `from` that has
    // data (file_slots() if none), and the first after it that does not
    // (rounded up to a whole slot). Without SEEK_DATA/SEEK_HOLE every slot
    // has data.
    size_t next_data_slot(size_t from) const;
    size_t data_end_slot(size_t from) const;
    // The first slot at or after `from` whose bytes are not all zero, if
    // any (holes skipped).
    std::optional<size_t> first_nonzero_slot(size_t from) const;

    // Appends one entry (entry_size bytes). The caller checked !is_full().
    // KAFKA_STORAGE_ERROR when no disk block could be reserved for it (the
    // entry is not written; indexes are sparse, so a skipped entry only makes
    // lookups scan further).
    status push_back(const uint8_t* entry);
    void set_entries(size_t n);

    // Grows the file to max size (for appends), or trims it to the entries.
    status grow_to_max();
    status trim_to_entries();
    // Durable up to what was written before the call. Any thread.
    status flush() const { return _file.datasync(); }
    status rename(const std::string& new_path);
    // The file is now at `new_path` (its directory was renamed).
    void set_path(std::string new_path) { _file.set_path(std::move(new_path)); }
    // Unmaps and closes (after trim_to_entries() if `trim`).
    status close(bool trim);

  private:
    index_file(file_handle f, uint8_t* map, size_t map_bytes, size_t entry_size, size_t max_entries,
               int64_t file_size);

    file_handle _file;
    uint8_t* _map = nullptr;
    size_t _map_bytes = 0;
    size_t _entry_size;
    size_t _max_entries;
    size_t _entries = 0;
    int64_t _file_size;
    int64_t _allocated = 0;  // bytes from 0 known to have real blocks
    bool _was_empty = false;
};

}  // namespace samsa::storage
