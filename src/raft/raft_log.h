#pragma once
// raft_log: what the Raft core needs of the replicated log (Kafka's
// RaftLog / ReplicatedLog), so that the core runs over an in-memory log in the
// simulation (raft/memory_raft_log.h) and over `__cluster_metadata-0` in the
// broker (raft/storage_raft_log.h).
//
// The log holds batches: consecutive records written by the leader of one
// epoch. One raft_batch is one Kafka record batch on disk (base offset and
// partition leader epoch = the Raft epoch; control batches carry KRaft control
// records such as LeaderChange, KIP-595).
//
// Offsets: start_offset() <= every offset held < end_offset(). Below the start
// there may be a snapshot (KIP-630) whose end offset is the log start.
//
// Epoch cache (Kafka's leader-epoch-checkpoint): for each epoch present, the
// offset its first batch starts at. end_offset_for_epoch() answers
// OffsetForLeaderEpoch, which the leader uses to validate a follower's
// (fetch offset, last fetched epoch) and the follower to truncate.
//
// Durability: appends are not durable until flush(); durable_end_offset() is
// the end of what a crash would keep. Truncations and snapshots are durable at
// once. The leader counts only its durable end offset toward the high
// watermark; followers flush before their next Fetch reports the offset.
//
// Not thread-safe: owned by the thread that drives the raft_node.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "raft/raft_types.h"

namespace samsa::raft {

// Kafka's ControlRecordType values, used as the control record's key.
enum class control_record_type : int16_t {
    none = -1,  // a data batch
    leader_change = 2,
    snapshot_header = 3,
    snapshot_footer = 4,
};

struct raft_batch {
    raft_offset base_offset{0};
    raft_epoch epoch{0};
    control_record_type control = control_record_type::none;
    std::vector<bytes> records;  // record values; record i is at base_offset + i

    bool is_control() const { return control != control_record_type::none; }
    raft_offset end_offset() const { return base_offset + int64_t(records.size()); }
    raft_offset last_offset() const { return end_offset() - 1; }
    // What the batch weighs against Fetch's max_bytes (values plus a fixed
    // per-record and per-batch overhead, as record batch v2 roughly has).
    int64_t size_bytes() const;
    bool operator==(const raft_batch&) const = default;
};

// A snapshot (KIP-630): the state machine's state covering every offset below
// id.offset, where id.epoch is the epoch of the entry at id.offset - 1. The
// bytes are the state machine's; the raft layer stores, serves and installs
// them whole (the broker writes them as a `.checkpoint` file).
struct raft_snapshot {
    offset_and_epoch id;
    std::shared_ptr<const bytes> data;
};

// What metadata.max.retention.bytes/ms weigh of a snapshot
// (raft/snapshot_cleaning.h).
struct snapshot_info {
    offset_and_epoch id;
    int64_t size_bytes = 0;
    // The last contained log timestamp of its SnapshotHeader record; nullopt
    // when the snapshot does not start with one (or cannot be read).
    std::optional<int64_t> timestamp_ms;
};

class raft_log {
  public:
    virtual ~raft_log() = default;

    virtual raft_offset start_offset() const = 0;
    virtual raft_offset end_offset() const = 0;
    // The epoch of the last entry; the latest snapshot's epoch when the log is
    // empty above it; 0 when there is neither.
    virtual raft_epoch last_epoch() const = 0;
    offset_and_epoch end_offset_and_epoch() const { return {end_offset(), last_epoch()}; }
    virtual raft_offset durable_end_offset() const = 0;

    // Appends `records` as one batch at end_offset() stamped with `epoch` (the
    // leader's). Returns the batch's last offset. `records` must not be empty.
    virtual result<raft_offset> append_as_leader(std::vector<bytes> records, raft_epoch epoch,
                                                 control_record_type control) = 0;
    // Appends batches as the leader assigned them; the first must start at
    // end_offset() and they must be contiguous (INVALID_RECORD otherwise), and
    // their epochs must not decrease.
    virtual status append_as_follower(const std::vector<raft_batch>& batches) = 0;
    // Removes every batch holding an offset >= `end` (a batch straddling `end`
    // goes whole). Not below start_offset().
    virtual status truncate_to(raft_offset end) = 0;
    virtual status flush() = 0;

    // Whole batches from the one holding `from` (start_offset() <= from <
    // end_offset(), else OFFSET_OUT_OF_RANGE), at least one, then more while
    // they fit in `max_bytes`.
    virtual result<std::vector<raft_batch>> read(raft_offset from, int64_t max_bytes) const = 0;

    // Kafka's endOffsetForEpoch: the largest epoch <= `epoch` present in the
    // log (or the snapshot's) and its end offset (the start of the next epoch,
    // or end_offset() for the last). nullopt when `epoch` is below all of them.
    virtual std::optional<offset_and_epoch> end_offset_for_epoch(raft_epoch epoch) const = 0;
    // The epoch of the entry at `offset` (the snapshot's for start_offset() - 1).
    virtual std::optional<raft_epoch> epoch_for_offset(raft_offset offset) const = 0;

    // Snapshots (KIP-630).
    virtual std::optional<raft_snapshot> latest_snapshot() const = 0;
    virtual result<raft_snapshot> read_snapshot(offset_and_epoch id) const = 0;
    // Stores a snapshot durably (keeps only snapshots at or above the log start).
    virtual status store_snapshot(raft_snapshot snapshot) = 0;
    // The snapshots at or above the log start, oldest first.
    virtual std::vector<snapshot_info> snapshot_infos() const = 0;
    // The bytes the log holds.
    virtual int64_t size_bytes() const = 0;
    // Drops the log below snapshot `id` (a held snapshot above the log start,
    // at or below the end offset and agreeing with the log's epoch there);
    // start_offset() becomes its end offset and older snapshots go. Returns
    // whether anything was dropped.
    virtual result<bool> delete_before_snapshot(offset_and_epoch id) = 0;
    result<bool> truncate_before_latest_snapshot() {
        auto s = latest_snapshot();
        return s ? delete_before_snapshot(s->id) : result<bool>(false);
    }
    // A follower installed the latest snapshot: when the log does not already
    // extend it consistently (the snapshot ends past the log end, or the log's
    // epoch at its end offset differs), the log is emptied and restarts at the
    // snapshot's end offset (Kafka's truncateToLatestSnapshot). Returns whether
    // it was.
    virtual result<bool> truncate_to_latest_snapshot() = 0;
};

}  // namespace samsa::raft
