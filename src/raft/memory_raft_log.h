#pragma once
// memory_raft_log: a raft_log held in memory, for the deterministic simulation
// and unit tests. It models a disk that loses what was not flushed: crash()
// drops every batch past the durable end offset, as a process killed before its
// fdatasync would. Truncations and snapshots are durable at once.
//
// Invariant: batches are contiguous from start_offset() to end_offset(), their
// epochs non-decreasing; _epochs holds the first offset of each epoch present
// in _batches; start_offset() <= durable_end_offset() <= end_offset().
#include <vector>

#include "raft/raft_log.h"

namespace samsa::raft {

class memory_raft_log final : public raft_log {
  public:
    memory_raft_log() = default;

    raft_offset start_offset() const override { return _start; }
    raft_offset end_offset() const override;
    raft_epoch last_epoch() const override;
    raft_offset durable_end_offset() const override { return _durable; }

    result<raft_offset> append_as_leader(std::vector<bytes> records, raft_epoch epoch,
                                         control_record_type control) override;
    status append_as_follower(const std::vector<raft_batch>& batches) override;
    status truncate_to(raft_offset end) override;
    status flush() override;
    result<std::vector<raft_batch>> read(raft_offset from, int64_t max_bytes) const override;

    std::optional<offset_and_epoch> end_offset_for_epoch(raft_epoch epoch) const override;
    std::optional<raft_epoch> epoch_for_offset(raft_offset offset) const override;

    std::optional<raft_snapshot> latest_snapshot() const override;
    result<raft_snapshot> read_snapshot(offset_and_epoch id) const override;
    status store_snapshot(raft_snapshot snapshot) override;
    std::vector<snapshot_info> snapshot_infos() const override;
    int64_t size_bytes() const override;
    result<bool> delete_before_snapshot(offset_and_epoch id) override;
    result<bool> truncate_to_latest_snapshot() override;

    // The process died: what was not flushed is gone.
    void crash();
    // Every batch held, for the simulation's invariant checks.
    const std::vector<raft_batch>& batches() const { return _batches; }

  private:
    struct epoch_start {
        raft_epoch epoch;
        raft_offset start;
    };
    void rebuild_epochs();
    // Index in _batches of the batch holding `offset` (which must be held).
    size_t batch_index(raft_offset offset) const;

    std::vector<raft_batch> _batches;
    std::vector<epoch_start> _epochs;
    std::vector<raft_snapshot> _snapshots;  // increasing ids
    raft_offset _start{0};
    raft_offset _durable{0};
};

}  // namespace samsa::raft
