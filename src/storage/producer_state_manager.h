#pragma once
// producer_state_manager: the idempotent/transactional producer state of one
// partition (Kafka's ProducerStateManager + ProducerAppendInfo): for each
// producer id its epoch and last batches, checked on every append, and the
// `.snapshot` files that let it survive restarts (format:
// storage/producer_state_snapshot.h, docs/formats/producer_snapshot.md).
//
// Appends are two steps around the write, so that a failed write changes
// nothing: prepare() checks the batches (offsets already assigned) and builds
// the producers' next entries; commit() applies them once the bytes are in.
// The checks, by origin (Kafka 3.x rules for non-transactional producers):
//   client       a retry of one of a producer's last five batches (same epoch,
//                same first and last sequence) is a duplicate: its original
//                offsets are returned and nothing is written. Otherwise an
//                epoch below the producer's is INVALID_PRODUCER_EPOCH; under
//                the same epoch the first sequence must follow the last one
//                (INT32_MAX wraps to 0), else OUT_OF_ORDER_SEQUENCE_NUMBER; a
//                new epoch must start at sequence 0 (OUT_OF_ORDER_...), except
//                for a producer the partition has no state for, which may
//                start anywhere (KIP-360: its state may have expired; Kafka
//                >= 2.5 no longer answers UNKNOWN_PRODUCER_ID here).
//   coordinator  epoch checks only (the coordinators' batches have no sequences).
//   replication  no checks (the leader made them): followers and log recovery.
//
// The map end offset is the offset up to which the state reflects the log;
// a snapshot is taken at it. The log keeps it equal to its log end offset.
//
// Threading: owned by the partition log, on its shard; not thread-safe.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_header.h"
#include "record/batch_validator.h"
#include "storage/producer_state_entry.h"
#include "storage/producer_state_snapshot.h"
#include "storage/topic_partition.h"

namespace samsa::storage {

struct producer_state_config {
    // producer.id.expiration.ms: a producer without an open transaction whose
    // last batch is older than this (by its max timestamp) is forgotten.
    int64_t producer_id_expiration_ms = 86400000;
};

// A transaction a marker ended (Kafka's CompletedTxn): from the producer's
// first transactional offset to the marker's offset.
struct completed_txn {
    int64_t producer_id = -1;
    int64_t first_offset = -1;
    int64_t last_offset = -1;  // the marker
    bool aborted = false;
    bool operator==(const completed_txn&) const = default;
};

// What checking one append found (Kafka's ProducerAppendInfo, for every
// producer of the append).
struct producer_append {
    // A client retry of a batch already in the log: acknowledge it with these
    // offsets and write nothing.
    std::optional<batch_metadata> duplicate;
    // Each producer's entry as it will be after the append.
    std::map<int64_t, producer_state_entry> updated;
    // Transactions the append's markers end, in offset order.
    std::vector<completed_txn> completed;
    // Producers with a marker in the append (an open transaction or not).
    std::vector<int64_t> marked;
};

class producer_state_manager {
  public:
    producer_state_manager(std::string dir, topic_partition tp, producer_state_config config);

    const producer_state_config& config() const { return _config; }
    void set_config(const producer_state_config& c) { _config = c; }

    // ---- appends

    // Checks a blob of whole batches with offsets assigned. Errors:
    // INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_TXN_STATE,
    // TRANSACTION_COORDINATOR_FENCED, CORRUPT_MESSAGE (an unreadable marker).
    result<producer_append> prepare(bytes_view batches, record::append_origin origin) const;
    // Checks one batch into `a`. `batch` must hold the whole batch when it is a
    // control batch (its marker is read); otherwise only the header is used.
    status prepare_batch(producer_append& a, const record::batch_header& h, bytes_view batch,
                         record::append_origin origin) const;
    // Applies a prepared append whose batches were written; the state now
    // reflects the log up to `map_end_offset`.
    void commit(producer_append&& a, int64_t map_end_offset);

    int64_t map_end_offset() const { return _map_end_offset; }

    // ---- transactions (the last stable offset, KIP-98)
    // The first offset of the earliest transaction that is open, or ended by a
    // marker the high watermark has not passed yet (Kafka's
    // firstUnstableOffset); nullopt when there is none.
    std::optional<int64_t> first_unstable_offset() const;
    // The high watermark moved: ended transactions it passed are stable.
    void on_high_watermark(int64_t high_watermark);
    // The last stable offset to record with an aborted transaction in the
    // .txnindex (Kafka's lastStableOffset(completedTxn)): the first offset of
    // the earliest other unstable transaction, else just past the marker.
    int64_t last_stable_offset_after(const completed_txn& t) const;
    // Open transactions, by first offset (producer id).
    const std::map<int64_t, int64_t>& ongoing_transactions() const { return _ongoing; }

    // ---- KIP-890 verification guards
    // A transactional producer's first write to this partition is checked
    // with its coordinator first. The guard taken before asking is valid
    // until the producer's next marker (or its first transactional write)
    // here: a write verified against a transaction that ended meanwhile is
    // refused, so a late write can never open a transaction nobody will end.
    uint64_t begin_verification(int64_t producer_id);
    bool is_verified(int64_t producer_id, uint64_t guard) const;
    void update_map_end_offset(int64_t o) { _map_end_offset = o; }

    // ---- state

    const producer_map& producers() const { return _producers; }
    const producer_state_entry* find(int64_t producer_id) const;
    // Forgets producers idle for producer.id.expiration.ms; returns how many.
    size_t remove_expired_producers(int64_t now_ms);
    // Drops all state and every snapshot; the state starts over at `offset`.
    status truncate_fully_and_start_at(int64_t offset);

    // ---- snapshots

    // Lists the directory's snapshot files (on open).
    status scan_snapshots();
    // Kafka's removeStraySnapshots: deletes snapshots that are at no segment
    // base offset, except the latest one when it lies above every base (the
    // one a clean shutdown or a load wrote).
    status remove_stray_snapshots(const std::vector<int64_t>& segment_bases);
    // Drops the state and loads the latest snapshot within [lowest, log_end]
    // (a corrupt one is deleted and the next older tried), skipping expired
    // producers; snapshots outside that range are deleted. The map end offset
    // becomes the snapshot's offset, or `lowest` without one: the caller
    // replays the log from there.
    status truncate_and_reload(int64_t lowest, int64_t log_end, int64_t now_ms);
    // Writes a snapshot at the map end offset unless one is there already.
    // Without `sync` the file is remembered for take_unsynced_snapshots().
    status take_snapshot(bool sync);
    void delete_snapshots_before(int64_t offset);
    // The snapshot at `offset`, if any (a segment a cleaning replaced).
    void delete_snapshot(int64_t offset);
    std::optional<int64_t> latest_snapshot_offset() const;
    std::vector<int64_t> snapshot_offsets() const;
    // Snapshot files written without fsync since the last call (the log's
    // background flush syncs them).
    std::vector<std::string> take_unsynced_snapshots();
    // Its directory was renamed to `dir` (log::rename_dir).
    void set_dir(const std::string& dir);

  private:
    status check_data_batch(producer_state_entry& updated, const producer_state_entry* current,
                            const record::batch_header& h, record::append_origin origin) const;
    status check_end_txn_marker(producer_append& a, producer_state_entry& updated,
                                const record::batch_header& h, bytes_view batch,
                                record::append_origin origin) const;
    // After a reload: the open transactions as the producers say.
    void rebuild_transactions();
    bool is_expired(const producer_state_entry& e, int64_t now_ms) const;

    std::string _dir;
    topic_partition _tp;
    producer_state_config _config;
    producer_map _producers;
    int64_t _map_end_offset = 0;
    std::map<int64_t, int64_t> _ongoing;               // first offset -> producer id
    std::map<int64_t, completed_txn> _unreplicated;    // first offset -> ended, above the HW
    std::map<int64_t, uint64_t> _verification_guards;  // producer id -> guard
    uint64_t _next_guard = 1;
    std::map<int64_t, std::string> _snapshots;  // offset -> path
    std::vector<std::string> _unsynced;
};

}  // namespace samsa::storage
