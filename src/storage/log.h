#pragma once
// log: one partition's log (Kafka's UnifiedLog + LocalLog): the directory
// `<topic>-<partition>/` with its segments (storage/log_segment.h),
// `leader-epoch-checkpoint` (storage/leader_epoch_cache.h),
// `partition.metadata` (storage/partition_metadata.h) and producer state
// snapshots (storage/producer_state_manager.h). Format and recovery:
// docs/formats/segment.md, docs/formats/producer_snapshot.md.
//
// Offsets (Kafka's names): log start offset (LSO here; the first offset a reader
// may fetch) <= high watermark (set by replication) <= log end offset (LEO, the
// next offset to assign). The recovery point: every offset below it is on
// disk (fdatasync'd); recovery after a crash starts there.
//
// Invariants: segments are keyed by base offset, their offsets increasing and
// not overlapping; the last one is the active segment, the only one appended
// to; log start offset <= high watermark <= LEO; recovery point <= LEO.
//
// Threading (docs/architecture.md, "Threads"): a log is owned by one shard and is NOT thread-safe.
// What may happen elsewhere:
//  * blocking flushes run on the `blocking_executor` given at open (a background
//    pool); it must call `done` back on the owner's shard;
//  * the *_snapshot() getters are atomics, for checkpoint writers;
//  * file slices returned by read() (shared fds) may be sent from any thread;
//  * deleted segments go to the deletion_queue, drained by any thread.
// A log must be held by std::shared_ptr (flush completions hold a weak_ptr).
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/kafka_types.h"
#include "common/result.h"
#include "common/uuid.h"
#include "storage/compaction/cleaning_plan.h"
#include "storage/deletion_queue.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log_config.h"
#include "storage/log_dir_health.h"
#include "storage/log_segment.h"
#include "storage/producer_state_manager.h"
#include "storage/topic_partition.h"

namespace samsa::storage {

// Runs `job` off the owner's shard, then `done(job())` back on it.
using blocking_executor =
    std::function<void(std::function<status()> job, std::function<void(status)> done)>;
// Runs the job and `done` at once on the calling thread: the default, for
// tests, tools and single-threaded use.
blocking_executor inline_executor();

// ListOffsets special timestamps (Kafka's ListOffsetsRequest).
inline constexpr int64_t latest_timestamp = -1;
inline constexpr int64_t earliest_timestamp = -2;
inline constexpr int64_t max_timestamp = -3;
inline constexpr int64_t earliest_local_timestamp = -4;
// KIP-1005: the last offset in tiered storage. Without tiered storage there is
// none: Kafka answers offset -1, no error.
inline constexpr int64_t latest_tiered_timestamp = -5;

struct log_open_options {
    std::string dir;  // the partition directory; created if missing
    topic_partition tp;
    log_config config;
    int64_t now_ms = 0;
    // From the log dir's checkpoint files (0 when absent).
    int64_t recovery_point = 0;
    int64_t log_start_offset = 0;
    int64_t high_watermark = 0;
    // The dir had Kafka's `.kafka_cleanshutdown` marker: skip recovery.
    bool had_clean_shutdown = false;
    // Checked against, or written to, partition.metadata (KIP-516).
    std::optional<uuid> topic_id;
    std::shared_ptr<deletion_queue> deletions;  // default: a private queue
    blocking_executor executor;                 // default: inline_executor()
    producer_state_config producer_state;       // broker-wide producer.id.* settings
    // The log dir's shared health: a write failure here takes the dir offline,
    // and a dir taken offline by another log stops this one's writes.
    std::shared_ptr<log_dir_health> dir_health;
    // False for a future log (KIP-113): no flush of its own starts (after a
    // roll, flush.messages) until enable_background_flush, so none is ever in
    // flight when the swap renames its directory.
    bool background_flush = true;
};

struct append_result {
    int64_t first_offset = -1;
    int64_t last_offset = -1;
    int64_t max_timestamp = -1;            // largest batch max timestamp
    int64_t offset_of_max_timestamp = -1;  // last offset of the batch holding it
    int64_t log_append_time_ms = -1;       // the `now` of the append
    int64_t log_start_offset = 0;
    int32_t batches = 0;
    int64_t records = 0;  // sum of records_count
    int64_t bytes = 0;
    // A client's retry of a batch already in the log (idempotent producer):
    // nothing was written; first/last offset are the original batch's and
    // log_append_time_ms its timestamp (what Kafka answers).
    bool duplicate = false;
};

struct log_read {
    file_slice records;  // empty when there is nothing to return
    int64_t log_start_offset = 0;
    int64_t log_end_offset = 0;
    int64_t high_watermark = 0;
};

struct timestamp_lookup {
    int64_t timestamp = -1;
    int64_t offset = -1;
    std::optional<int32_t> leader_epoch;
};

// One cut recovery made: where, why, and where the cut bytes went.
struct recovery_cut {
    std::string segment;      // the .log file
    int64_t position = 0;     // the file was cut here...
    int64_t bytes = 0;        // ...dropping this many bytes from it
    int64_t from_offset = 0;  // the first offset no longer in the log
    std::string reason;
    bool corrupt = false;  // corruption, not a torn tail (recovery.md)
    std::string kept_as;   // the cut bytes (a .corrupt file), when kept
};

// What loading found, for the startup log lines.
struct log_load_report {
    int segments = 0;
    int segments_recovered = 0;
    int64_t bytes_truncated = 0;
    std::string first_truncation_reason;
    std::vector<recovery_cut> cuts;
};

using flush_callback = std::function<void(status)>;

class log : public std::enable_shared_from_this<log> {
  public:
    // Loads (recovering what needs it) or creates the partition's log. Errors:
    // KAFKA_STORAGE_ERROR when the directory or a .log cannot be read (the
    // partition is then offline); INCONSISTENT_TOPIC_ID when partition.metadata
    // names another topic id.
    static result<std::shared_ptr<log>> open(log_open_options options);
    ~log();
    log(const log&) = delete;
    log& operator=(const log&) = delete;

    const topic_partition& partition() const { return _tp; }
    const std::string& dir() const { return _dir; }
    const log_config& config() const { return _config; }
    // Takes effect for the next roll, index entry, retention run and flush check.
    void update_config(const log_config& c) {
        _config = c;
        _compacted.store(c.cleanup_compact, std::memory_order_relaxed);
    }
    const std::optional<uuid>& topic_id() const { return _topic_id; }
    const log_load_report& load_report() const { return _load_report; }

    int64_t log_start_offset() const { return _log_start_offset; }
    int64_t log_end_offset() const { return _log_end_offset; }
    int64_t high_watermark() const { return _high_watermark; }
    // The last stable offset (KIP-98): below it every transaction is decided
    // and replicated; read_committed consumers read up to it. The high
    // watermark when no transaction is unstable.
    int64_t last_stable_offset() const;
    // The aborted transactions a read_committed fetch of [from, upper) must
    // name (their last offset >= from, first offset < upper), from the
    // .txnindex of every segment from the one holding `from` on.
    std::vector<aborted_txn> aborted_transactions(int64_t from, int64_t upper) const;
    int64_t recovery_point() const { return _recovery_point; }
    // Any thread (checkpoint writers).
    int64_t log_start_offset_snapshot() const { return _lso_snapshot.load(); }
    int64_t recovery_point_snapshot() const { return _rp_snapshot.load(); }
    int64_t high_watermark_snapshot() const { return _hw_snapshot.load(); }

    int64_t size_bytes() const;
    size_t segment_count() const { return _segments.size(); }
    std::vector<std::shared_ptr<const log_segment>> segments() const;
    const log_segment& active_segment() const { return *_segments.rbegin()->second; }
    const leader_epoch_cache& leader_epochs() const { return _epochs; }
    leader_epoch_cache& leader_epochs() { return _epochs; }
    // Set when a write or fsync failed: every later call returns it.
    const std::optional<error>& failure() const { return _failure; }

    // Leader append: assigns offsets from the LEO by stamping each batch's base
    // offset and partition leader epoch in place (the CRC does not cover them),
    // rolling first when the active segment must roll. The batches must have
    // been validated (record/batch_validator.h); this checks only their framing,
    // and the producer state of batches with a producer id (`origin`: client
    // batches get duplicate detection and sequence checks, coordinator batches
    // epoch checks; see storage/producer_state_manager.h).
    // Errors: CORRUPT_MESSAGE (framing), MESSAGE_TOO_LARGE (a batch over
    // max.message.bytes), RECORD_LIST_TOO_LARGE (a batch over segment.bytes),
    // INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_TXN_STATE,
    // TRANSACTION_COORDINATOR_FENCED, KAFKA_STORAGE_ERROR. Rolling creates files
    // (and preallocates indexes) on the calling thread, as Kafka does on its
    // request threads.
    result<append_result> append_as_leader(
        std::span<uint8_t> batches, int32_t leader_epoch, int64_t now_ms,
        record::append_origin origin = record::append_origin::client);
    // Follower append: offsets and epochs as the leader assigned them; the first
    // base offset must be >= LEO (OFFSET_OUT_OF_RANGE otherwise; a gap is fine).
    // Producer state follows the batches unchecked.
    result<append_result> append_as_follower(bytes_view batches, int64_t now_ms);

    // Idempotent/transactional producers of this partition (DescribeProducers).
    const producer_state_manager& producer_state() const { return _producers; }
    // producer.id.expiration.ms, dynamic (the log's owning shard).
    void set_producer_id_expiration_ms(int64_t ms) {
        auto c = _producers.config();
        c.producer_id_expiration_ms = ms;
        _producers.set_config(c);
    }
    // KIP-890: see producer_state_manager::begin_verification.
    uint64_t begin_txn_verification(int64_t producer_id) {
        return _producers.begin_verification(producer_id);
    }
    // producer.id.expiration.ms; retention runs call it too. Returns how many
    // producers were forgotten.
    size_t remove_expired_producers(int64_t now_ms);

    // Fetch: bytes from the batch holding `offset`, at most `max_bytes` (the
    // first batch whole when `min_one_message`, KIP-74), only batches below
    // `max_offset` (exclusive: the high watermark for consumers; nullopt: the
    // LEO), from a single segment. OFFSET_OUT_OF_RANGE outside [log start,
    // LEO]; at LEO or at/above max_offset an empty result.
    result<log_read> read(kafka_offset offset, int64_t max_bytes,
                          std::optional<kafka_offset> max_offset, bool min_one_message) const;

    // ListOffsets: for a timestamp >= 0, the first record with timestamp >= it
    // (nullopt when none); latest_timestamp -> LEO, earliest_timestamp and
    // earliest_local_timestamp -> log start offset, max_timestamp -> the record
    // with the largest timestamp (nullopt when none has one). Bounding the
    // answer by the high watermark is the caller's (isolation level).
    result<std::optional<timestamp_lookup>> offset_for_timestamp(int64_t timestamp) const;

    // Replication sets it; clamped to [log start, LEO].
    void update_high_watermark(int64_t hw);

    // Follower truncation: removes every batch holding an offset >= `offset`
    // (the whole batch when it straddles `offset`: the LEO is then that batch's
    // base offset, which is what log_end_offset() reports). No-op at/after LEO;
    // below the log start it is truncate_fully_and_start_at(offset). Pending
    // when_durable callbacks above the new LEO get NOT_LEADER_OR_FOLLOWER.
    status truncate_to(int64_t offset, int64_t now_ms);
    // Drops all data; the log restarts empty at `offset` (= LSO = LEO = HW).
    status truncate_fully_and_start_at(int64_t offset, int64_t now_ms);
    // DeleteRecords: moves the log start offset up to `offset` (at most the high
    // watermark, else OFFSET_OUT_OF_RANGE) and drops segments wholly below it.
    // Returns the new log start offset (the low watermark).
    result<int64_t> delete_records_before(int64_t offset, int64_t now_ms);

    // Rolls now (unless the active segment is empty); returns the new base.
    result<int64_t> roll(int64_t now_ms);

    // Retention: deletes whole segments, oldest first and never the active one,
    // nor any not wholly below the high watermark: those wholly below the log
    // start offset, and with cleanup.policy=delete those past retention.ms (by
    // their largest timestamp) or beyond retention.bytes. Returns how many.
    result<int> delete_old_segments(int64_t now_ms);

    // Group commit. `cb(status)` runs on the owner's shard once every offset <=
    // `offset` is on disk. One fdatasync covers all waiters that arrived while
    // the previous one ran. With flush.messages=1 the produce path should ack
    // from here: append, then when_durable(last_offset, ack).
    void when_durable(int64_t offset, flush_callback cb);
    // flush.ms: starts a background flush when one is due.
    void flush_if_due(int64_t now_ms);
    bool flush_in_progress() const { return _flush_in_flight; }
    // Runs `hook` on the owner's shard at a moment with no flush in flight:
    // now if there is none, else as the one in flight completes, after its
    // waiters are answered and before the next flush starts. Back-to-back group
    // commits leave no such moment between appends; a log dir move's swap
    // needs one. One hook at a time: a second replaces the first; dropped if
    // the log fails or closes.
    void after_flush(std::function<void()> hook);
    // The durable-ack waiters not yet answered, taken out of this log (a log
    // dir move hands them to the log that replaces this one).
    std::multimap<int64_t, flush_callback> take_waiters();
    // A future log that became the live one flushes as any other, starting
    // now with what was copied into it.
    void enable_background_flush();
    // Synchronous flush of everything appended, on the calling (owner) thread.
    status flush();

    // Flushes (unless `flush_first` is false) and closes every segment, indexes
    // trimmed; pending when_durable callbacks fail. Blocking (fdatasync): at
    // shutdown, call it off the reactor. The log is unusable afterwards; a
    // background flush still in flight finishes safely and is ignored.
    status close(bool flush_first = true);
    // Closes (without flushing: the data is going) and renames the directory to
    // <topic>-<partition>.<id>-delete, queueing it for deletion; returns the new
    // path.
    result<std::string> close_and_rename_for_delete(int64_t now_ms);
    // Renames the live log's directory to `new_dir` (on the same file system:
    // a future log taking its final name, storage/log_dir_move.cc) and points
    // every file path there; the open files stay open. Refused while a flush
    // is in flight (it syncs the old directory by name): retry after it.
    status rename_dir(const std::string& new_dir);

    // Compaction (log_compaction.cc; docs/compaction.md). On the owner shard:
    // what the cleaner may clean now, the dirty part starting at `first_dirty`
    // (clamped into the log).
    compaction::cleaning_plan plan_cleaning(int64_t first_dirty, int64_t now_ms) const;
    // Swaps each cleaned segment in for those it replaces, crash-safely
    // (.cleaned -> .swap, the old ones -> .deleted, .swap -> final names).
    // false, with the cleaned files deleted, when the log changed since the
    // plan (truncation, retention, DeleteRecords, close): nothing is swapped.
    result<bool> swap_cleaned(compaction::cleaning_outcome& outcome, uint64_t generation,
                              int64_t now_ms);
    // cleanup.policy includes compact; any thread (the cleaner's selection).
    bool compacted_snapshot() const { return _compacted.load(std::memory_order_relaxed); }

  private:
    log(log_open_options& options, leader_epoch_cache epochs);
    status load(const log_open_options& options);
    status complete_swaps();
    std::shared_ptr<log_segment> active() const { return _segments.rbegin()->second; }
    result<append_result> append_checked(bytes_view batches, int32_t leader_epoch,
                                         record::append_origin origin, int64_t now_ms);
    status maybe_roll(int64_t bytes, int64_t max_ts, int64_t first_offset, int64_t last_offset,
                      int64_t now_ms);
    status roll_at(int64_t new_base, int64_t now_ms);
    status fail(error e);
    // The log's failure, or (failing the log) its dir's when another log took
    // the dir offline; ok otherwise. Called before every write.
    status check_dir_online();
    // A read's failure as the client gets it (logged once per log).
    error read_failed(error e) const;
    void set_log_start_offset(int64_t o);
    void set_recovery_point(int64_t o);
    void set_high_watermark(int64_t o);
    // Segments are renamed to .deleted and queued; the map drops them.
    status remove_segments(const std::vector<int64_t>& bases, int64_t now_ms);
    template <typename Pred>
    result<int> delete_segments_while(Pred pred, int64_t now_ms);
    void after_truncation(int64_t new_leo);

    // Producer state (log_producer_state.cc).
    status load_producer_state(int64_t now_ms);
    // Reloads the latest usable snapshot and replays the log after it; true
    // when batches were replayed.
    result<bool> rebuild_producer_state(int64_t now_ms);
    status replay_producer_state(int64_t from, int64_t to);
    status snapshot_producer_state_at(int64_t offset);
    // Writes the aborted transactions among `completed` to the .txnindex of
    // the segment holding each marker.
    status index_aborted_transactions(const std::vector<completed_txn>& completed);

    // Flush machinery (log_flush.cc).
    void start_flush(int64_t up_to);
    void on_flush_done(int64_t up_to, status s);
    void complete_waiters();
    void fail_waiters_from(int64_t offset, const error& e);
    bool flush_wanted() const;

    std::string _dir;
    topic_partition _tp;
    log_config _config;
    std::optional<uuid> _topic_id;
    std::map<int64_t, std::shared_ptr<log_segment>> _segments;
    leader_epoch_cache _epochs;
    std::shared_ptr<deletion_queue> _deletions;
    blocking_executor _executor;
    producer_state_manager _producers;
    int64_t _log_start_offset = 0;
    int64_t _log_end_offset = 0;
    int64_t _high_watermark = 0;
    int64_t _recovery_point = 0;
    std::atomic<int64_t> _lso_snapshot{0};
    std::atomic<int64_t> _rp_snapshot{0};
    std::atomic<int64_t> _hw_snapshot{0};
    std::optional<error> _failure;
    std::shared_ptr<log_dir_health> _dir_health;
    mutable std::atomic<bool> _read_failure_logged{false};
    log_load_report _load_report;
    bool _closed = false;
    // Bumped whenever segments leave the log other than by a swap: a cleaning
    // planned before is then stale.
    uint64_t _generation = 0;
    std::set<int64_t> _swapped_in;  // segments whose swap load completed (recovered)
    std::atomic<bool> _compacted{false};

    // Flush state.
    bool _flush_in_flight = false;
    bool _dir_dirty = false;    // a segment file was created since the last flush
    int64_t _truncated_to = 0;  // lowest truncation point during the flush in flight
    int64_t _unflushed_messages = 0;
    int64_t _last_flush_ms = 0;
    int64_t _now_ms = 0;  // latest time seen from callers
    std::multimap<int64_t, flush_callback> _waiters;
    bool _background_flush = true;
    std::function<void()> _after_flush;
};

}  // namespace samsa::storage
