#pragma once
// log_segment: one segment of a partition log (Kafka's LogSegment): a `.log`
// file of record batches and its two sparse indexes, all named by the segment's
// base offset (storage/segment_name.h; format: docs/formats/segment.md).
//
//   <base>.log        batches exactly as on the wire, offsets already stamped
//   <base>.index      offset -> position (storage/offset_index.h)
//   <base>.timeindex  max timestamp -> offset (storage/time_index.h)
//   <base>.txnindex   aborted transactions, only once there is one
//                     (storage/transaction_index.h)
//
// Invariants: batches are whole and back to back from position 0; their
// offsets strictly increase, start at >= base offset and stay within base +
// 2^31-1; the file holds size_bytes() bytes of them (a torn tail past that is
// what recover() removes).
//
// Threading: owned by the partition log's shard and not thread-safe, except
//  * flush(), which any thread may call while the owner appends: it makes
//    durable everything appended before the call (fdatasync of the .log, and of
//    the index files, which also writes back pages stored through the maps);
//  * delete_files(), for a segment the log no longer holds;
//  * the file_slice a read returns, which shares ownership of the .log fd so a
//    fetch can sendfile it from any thread, even after the segment was deleted.
// flush(), close() and delete_files() exclude each other, so a background
// flush never sees a closed fd.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "storage/file_batch_reader.h"
#include "storage/file_util.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log_config.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "storage/transaction_index.h"

namespace samsa::storage {

// Largest .log size: positions in the offset index are int32.
inline constexpr int64_t max_segment_size = 2147483647;

// A byte range of a .log file, ready for sendfile(fd, position, length). Holds
// the file open (a shared fd) while it lives. If the log is truncated under a
// pending send (leader change), sendfile comes up short: treat that as an I/O
// error on the connection, as Kafka does.
struct file_slice {
    std::shared_ptr<const file_handle> file;
    int64_t position = 0;
    int64_t length = 0;

    int fd() const { return file ? file->fd() : -1; }
    bool empty() const { return length == 0; }
    // The bytes, for TLS connections (which cannot sendfile) and tests.
    result<bytes> read() const;
};

struct segment_recovery {
    int64_t valid_bytes = 0;
    int64_t truncated_bytes = 0;  // > 0: an invalid batch was found and cut off
    std::string reason;           // why, when truncated_bytes > 0
    // The cut was not a torn tail (a batch the end of the file cut short, as
    // a crash mid-write leaves) but an invalid batch (a CRC or framing error:
    // corruption).
    bool corrupt = false;
    std::string kept_as;      // the cut bytes, kept in a .corrupt file
    int64_t next_offset = 0;  // the first offset cut off (the segment's new end)
    // Where each leader epoch first appears among the valid batches, in order
    // (each epoch above the one before): what the log's leader epoch cache
    // must hold for them, as Kafka's LogSegment.recover reassigns it.
    std::vector<epoch_entry> epoch_starts;
};

class log_segment {
  public:
    // A new, empty segment; files left with the same name are replaced. A
    // `suffix` is added to every file name: the cleaner writes its segments as
    // `<base>.log.cleaned` etc. (storage/compaction/log_cleaner.h).
    static result<std::shared_ptr<log_segment>> create(const std::string& dir, int64_t base_offset,
                                                       const log_config& config, int64_t now_ms,
                                                       std::string_view suffix = {});
    // An existing segment. With `needs_recovery`, every batch is re-validated
    // (recover()); otherwise the indexes are checked against the .log and
    // rebuilt only when missing or corrupt. `active` preallocates the indexes
    // for appends. KAFKA_STORAGE_ERROR when the .log cannot be read.
    static result<std::shared_ptr<log_segment>> open(const std::string& dir, int64_t base_offset,
                                                     const log_config& config, int64_t now_ms,
                                                     bool active, bool needs_recovery,
                                                     segment_recovery* recovery = nullptr);
    ~log_segment();
    log_segment(const log_segment&) = delete;
    log_segment& operator=(const log_segment&) = delete;

    int64_t base_offset() const { return _base_offset; }
    // One past the last offset held; base_offset() when empty.
    int64_t next_offset() const { return _next_offset; }
    int64_t size_bytes() const { return _size; }
    bool empty() const { return _size == 0; }
    // Largest batch max timestamp and the last offset of the batch holding it
    // (-1 and base offset when no batch has a timestamp).
    int64_t max_timestamp() const { return _max_timestamp; }
    int64_t offset_of_max_timestamp() const { return _offset_of_max_timestamp; }
    // What time retention compares: max_timestamp(), or the .log's mtime when
    // no batch has a timestamp.
    int64_t largest_timestamp() const;
    const std::string& log_path() const { return _log_path; }
    // The open .log file, for scans of its batches (file_batch_reader) on the
    // owner's shard.
    const file_handle& log_file() const { return *_log; }
    const offset_index& index() const { return *_offset_index; }
    const time_index& timeindex() const { return *_time_index; }
    const transaction_index& txn_index() const { return _txn_index; }
    // Records a transaction aborted by a marker in this segment.
    status append_aborted_txn(const aborted_txn& t);

    // Appends whole batches, offsets stamped: the first base offset >=
    // next_offset(), increasing, all within the relative-offset range. Adds an
    // index entry before each batch that follows more than index.interval.bytes
    // of unindexed log. CORRUPT_MESSAGE for bytes that break the invariants,
    // KAFKA_STORAGE_ERROR for a failed write (the segment is then unchanged).
    status append(bytes_view batches);

    // The first batch whose last offset >= `offset`, at or after
    // `start_position`; nullopt when the segment holds none.
    result<std::optional<file_batch>> translate_offset(int64_t offset,
                                                       int64_t start_position = 0) const;

    // Bytes from the batch holding `start_offset`: at most `max_bytes` (the last
    // batch may be cut, as Kafka returns it), not past `max_position` (-1: the
    // end), but the whole first batch when `min_one_message` (KIP-74). nullopt
    // when no batch here has an offset >= start_offset.
    struct read_result {
        file_slice slice;
        int64_t first_batch_offset;  // base offset of the first batch in the slice
    };
    result<std::optional<read_result>> read(int64_t start_offset, int64_t max_bytes,
                                            int64_t max_position, bool min_one_message) const;

    // The first record with timestamp >= `timestamp` and offset >=
    // `starting_offset` (its timestamp and offset), or nullopt.
    result<std::optional<timestamp_offset>> find_offset_by_timestamp(int64_t timestamp,
                                                                     int64_t starting_offset) const;

    // Removes the batch holding `offset` and everything after it. Returns the
    // bytes removed.
    result<int64_t> truncate_to(int64_t offset);

    // Re-reads every batch (sizes, CRC32C, increasing offsets), rebuilds both
    // indexes, and truncates the file at the first invalid batch.
    result<segment_recovery> recover();

    // Kafka's shouldRoll, for an append of `bytes` whose largest timestamp and
    // last offset are given.
    bool should_roll(const log_config& config, int64_t bytes, int64_t max_timestamp_in_batches,
                     int64_t last_offset_in_batches, int64_t now_ms) const;
    int64_t roll_jitter_ms() const { return _roll_jitter_ms; }

    // Roll: the final time index entry, indexes trimmed to size. Or back to
    // being appended to (after a truncation removed later segments).
    status on_become_inactive();
    status on_become_active();

    // Durable up to everything appended before the call. Any thread.
    status flush() const;
    // Final time index entry, indexes trimmed, files closed.
    status close();
    // Renames the three files to <name>.deleted; readers keep the open .log.
    status rename_to_deleted();
    // Renames every file from <name><current suffix> to <name><suffix> (the
    // cleaner's .cleaned -> .swap -> no suffix), the .log last: recovery treats
    // a `.log.swap` as a finished cleaning (docs/compaction.md).
    status change_suffix(std::string_view suffix);
    // Its directory was renamed to `dir` (log::rename_dir): every file path
    // now starts there. The open .log handle readers share keeps its old name
    // (only error messages read it).
    void set_dir(const std::string& dir);
    // The open .log shared, for a reader on another thread (the cleaner) that
    // must keep the file open whatever the owner does to the segment.
    std::shared_ptr<const file_handle> shared_log_file() const { return _log; }
    // Unlinks the files (after rename_to_deleted, or directly). Any thread once
    // the log dropped the segment.
    status delete_files();

  private:
    // Checks the CRC of every whole batch in [from, to) past the verified
    // prefix; the position of the first bad one, if any.
    result<std::optional<int64_t>> verify_crcs(int64_t from, int64_t to) const;
    log_segment(std::string dir, int64_t base_offset, file_handle log, const log_config& config,
                int64_t now_ms);
    status open_indexes(bool active, bool* missing, const log_config& config);
    // Index entries and in-memory maxima for a batch about to be (re)appended at
    // `position`.
    void index_batch(const record::batch_header& h, int64_t position);
    status load_tail_state();

    // <dir>/<base><kind><suffix>.
    std::string file_path(std::string_view kind) const;

    std::string _dir;
    int64_t _base_offset;
    std::string _suffix;
    std::string _log_path;
    std::shared_ptr<file_handle> _log;
    std::unique_ptr<offset_index> _offset_index;
    std::unique_ptr<time_index> _time_index;
    transaction_index _txn_index;
    int64_t _size = 0;
    int64_t _next_offset;
    int64_t _max_timestamp = -1;
    int64_t _offset_of_max_timestamp;
    int64_t _bytes_since_last_index_entry = 0;
    int32_t _index_interval_bytes;
    int64_t _created_ms;
    int64_t _roll_jitter_ms = 0;
    std::optional<int64_t> _rolling_based_timestamp;  // the first batch's max timestamp
    // Batches in [0, this) are known to have good CRCs: recovery checked them,
    // or this process appended them (validated before the append). A read
    // past it checks the batches it would send first (read(), const: the
    // owning shard only), so damage in a log that skipped recovery after a
    // clean shutdown is refused, never sent as is.
    mutable int64_t _crc_verified_end = 0;
    bool _active = true;
    bool _deleted = false;
    mutable std::mutex _lifecycle;  // flush() vs close() / delete_files()
};

}  // namespace samsa::storage
