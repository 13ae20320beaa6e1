#pragma once
// leader_epoch_cache: for each leader epoch of a partition, the first offset
// the leader of that epoch wrote (Kafka's LeaderEpochFileCache), persisted in
// the partition's `leader-epoch-checkpoint`:
//
//   0\n                      version
//   <count>\n
//   <epoch> <start offset>\n  * count, epochs and start offsets increasing
//
// Invariant: epochs and start offsets both strictly increase. Every change is
// written through (atomically) before the call returns, as Kafka flushes it.
// Used by append (a new epoch starts at the batch's base offset), truncation
// (both ends) and, by replication, OffsetForLeaderEpoch (end_offset_for()).
//
// Owned by the partition log's shard; not thread-safe.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace samsa::storage {

inline constexpr std::string_view leader_epoch_checkpoint_file = "leader-epoch-checkpoint";
inline constexpr int32_t undefined_epoch = -1;
inline constexpr int64_t undefined_epoch_offset = -1;

struct epoch_entry {
    int32_t epoch;
    int64_t start_offset;
    bool operator==(const epoch_entry&) const = default;
};

class leader_epoch_cache {
  public:
    // Loads `path` (missing: empty). KAFKA_STORAGE_ERROR for a malformed file or
    // entries that are not increasing.
    static result<leader_epoch_cache> load(std::string path);

    const std::vector<epoch_entry>& entries() const { return _entries; }
    std::optional<epoch_entry> latest() const;
    std::optional<int32_t> latest_epoch() const;

    // Records that `epoch` starts at `start_offset`. No-op when it is already
    // the latest epoch with an earlier or equal start. Entries that would break
    // monotonicity (epoch >= or start offset >= the new one) are removed first.
    status assign(int32_t epoch, int64_t start_offset);

    // OffsetForLeaderEpoch (Kafka's endOffsetFor): the end offset of `epoch` —
    // the start offset of the next higher epoch, or `log_end_offset` when it is
    // the latest — with the largest epoch <= `epoch`; (undefined, undefined)
    // when `epoch` is above every epoch or is undefined.
    epoch_entry end_offset_for(int32_t epoch, int64_t log_end_offset) const;
    // The epoch of the leader that wrote `offset`, if known.
    std::optional<int32_t> epoch_for_offset(int64_t offset) const;

    // Log truncated to `end_offset`: drops entries starting at or after it.
    status truncate_from_end(int64_t end_offset);
    // Log start moved to `start_offset`: drops entries wholly below it; the last
    // of them, if any, is kept and now starts at `start_offset`.
    status truncate_from_start(int64_t start_offset);
    // Drops everything (truncate_fully_and_start_at).
    status clear();

    // The checkpoint file is now at `path` (its directory was renamed).
    void set_path(std::string path) { _path = std::move(path); }

  private:
    explicit leader_epoch_cache(std::string path) : _path(std::move(path)) {}
    status persist() const;

    std::string _path;
    std::vector<epoch_entry> _entries;
};

}  // namespace samsa::storage
