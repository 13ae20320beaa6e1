#pragma once
// transaction_index: the `.txnindex` file of a segment (Kafka's
// TransactionIndex; format: docs/formats/txnindex.md): the transactions that
// were aborted by a marker in this segment, so that a read_committed Fetch
// can tell the consumer which of the batches it gets to drop.
//
//   entry (34 bytes, big-endian):
//     0  int16  version (0)
//     2  int64  producer id
//    10  int64  first offset of the transaction
//    18  int64  last offset (the ABORT marker's offset)
//    26  int64  last stable offset when the marker was written
//
// Entries are in marker order (increasing last offset). The file is created
// with the first entry and appended to without preallocation. A torn last
// entry (a crash mid-write) is dropped on open; an entry for a transaction
// already held (same producer, first and last offset) is ignored, so
// recovery may re-add what a replay finds.
//
// Owned by the segment's owner thread and not thread-safe, except flush().
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "storage/file_util.h"

namespace samsa::storage {

struct aborted_txn {
    int64_t producer_id = -1;
    int64_t first_offset = -1;
    int64_t last_offset = -1;
    int64_t last_stable_offset = -1;
    bool operator==(const aborted_txn&) const = default;
};

class transaction_index {
  public:
    static constexpr size_t entry_size = 34;

    // `path` need not exist; it is read when it does. KAFKA_STORAGE_ERROR on I/O.
    static result<transaction_index> open(std::string path);

    transaction_index() = default;
    transaction_index(transaction_index&&) noexcept = default;
    transaction_index& operator=(transaction_index&&) noexcept = default;

    const std::string& path() const { return _path; }
    const std::vector<aborted_txn>& entries() const { return _entries; }
    bool empty() const { return _entries.empty(); }

    // Appends (creating the file). A duplicate is a no-op; an entry whose last
    // offset is below the last one held is CORRUPT_MESSAGE.
    status append(const aborted_txn& t);
    // Drops every entry whose last offset >= `offset` (a log truncation).
    status truncate_to(int64_t offset);
    // Adds to `out` the transactions that overlap [from, upper): last offset
    // >= from and first offset < upper.
    void collect(int64_t from, int64_t upper, std::vector<aborted_txn>& out) const;

    status flush() const;
    status close();
    // Renames the file (if any) to `new_path`.
    status rename(const std::string& new_path);
    // The file (if any) is now at `new_path` (its directory was renamed).
    void set_path(const std::string& new_path);
    status delete_file();

  private:
    status ensure_open();

    std::string _path;
    std::optional<file_handle> _file;
    std::vector<aborted_txn> _entries;
};

}  // namespace samsa::storage
