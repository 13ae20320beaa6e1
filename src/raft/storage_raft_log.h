#pragma once
// storage_raft_log: the raft_log of the broker's metadata partition
// (`__cluster_metadata-0`), over a storage::log in Kafka's on-disk format.
//
// Each raft_batch is one record batch v2: base offset and partition leader
// epoch are the Raft offset and epoch; records have null keys and the raft
// record as value; a control batch (attributes bit 5) carries control records
// whose key is Kafka's (version 0, type), e.g. LEADER_CHANGE (2). The epoch
// cache is the log's leader-epoch-checkpoint.
//
// Snapshots (KIP-630) are files beside the segments named as Kafka names them,
// `<end offset, 20 digits>-<epoch, 10 digits>.checkpoint`, holding the bytes
// the state machine gave (for the metadata image: record batches framed by
// SnapshotHeader/SnapshotFooter control records — the integration's choice).
// Written atomically (temp, fsync, rename, fsync dir); found again on open.
//
// The durable end offset is the log's recovery point: flush() fdatasyncs.
// Owned by the thread that drives the raft_node (the controller thread).
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "raft/raft_log.h"
#include "storage/log.h"

namespace samsa::raft {

// Kafka's snapshot file name for `id`, and back (nullopt for other names).
std::string snapshot_file_name(offset_and_epoch id);
std::optional<offset_and_epoch> parse_snapshot_file_name(std::string_view name);

class storage_raft_log final : public raft_log {
  public:
    // `log` is open (recovered). `now_ms` stamps record timestamps and is
    // passed to the log's time-based bookkeeping. Lists the snapshots in the
    // log's directory; KAFKA_STORAGE_ERROR when it cannot.
    static result<std::unique_ptr<storage_raft_log>> open(std::shared_ptr<storage::log> log,
                                                          std::function<int64_t()> now_ms);

    raft_offset start_offset() const override;
    raft_offset end_offset() const override;
    raft_epoch last_epoch() const override;
    raft_offset durable_end_offset() const override;

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

    storage::log& log() { return *_log; }

  private:
    storage_raft_log(std::shared_ptr<storage::log> log, std::function<int64_t()> now_ms)
        : _log(std::move(log)), _now_ms(std::move(now_ms)) {}
    std::string snapshot_path(offset_and_epoch id) const;
    // Deletes snapshot files below the log start (none can be served any more),
    // keeping the latest.
    void delete_old_snapshots();

    std::shared_ptr<storage::log> _log;
    std::function<int64_t()> _now_ms;
    // Snapshots on disk; the latest one's bytes are cached once read.
    std::map<offset_and_epoch, std::shared_ptr<const bytes>> _snapshots;
};

}  // namespace samsa::raft
