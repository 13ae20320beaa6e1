#pragma once
// group_partitions: the __consumer_offsets partitions one shard leads, as both
// halves of the group coordinator see them (group_metadata_manager.h and
// offset_metadata_manager.h). It owns the coordinator runtime that loads and
// unloads them (coordinator/common/coordinator_runtime.h) and answers the
// questions both halves ask of it: which partition holds a group, whether it
// is served yet, and how a group's records are appended. Kafka gives each
// GroupCoordinatorShard the same view of its partition through the runtime's
// context.
//
// Threading: one per reactor shard, on that shard's thread.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cluster/purgatory/purgatory_driver.h"
#include "coordinator/common/coordinator_runtime.h"
#include "coordinator/group/group.h"
#include "coordinator/group/group_config.h"
#include "coordinator/group/group_coordinator_shard.h"

namespace samsa::coordinator {

class group_partitions {
  public:
    using clock_fn = std::function<int64_t()>;

    group_partitions(const group_config& config, cluster::purgatory_driver& driver,
                     clock_fn wall_clock, coordinator_runtime::shard_factory factory);
    group_partitions(const group_partitions&) = delete;
    group_partitions& operator=(const group_partitions&) = delete;

    coordinator_runtime& runtime() { return _runtime; }
    const coordinator_runtime& runtime() const { return _runtime; }

    // The __consumer_offsets partition of a group.
    int32_t partition_of(const std::string& group_id) const;
    // NONE when this shard serves the group, else COORDINATOR_LOAD_IN_PROGRESS
    // or NOT_COORDINATOR.
    error_code status(const std::string& group_id) const;
    // The group's partition once loaded, else nullptr.
    group_coordinator_shard* serving(const std::string& group_id) const;
    group_coordinator_shard* loaded(int32_t partition) const;
    // Loaded or loading, else nullptr.
    group_coordinator_shard* any(const std::string& group_id) const;
    // fn(partition, loading) for every partition this shard leads.
    void for_each(const std::function<void(group_coordinator_shard&, bool)>& fn) const;

    // Appends the records as one batch to the group's partition. Errors as
    // the append's, mapped by the caller (commits and group writes map them
    // differently, as in Kafka).
    error_code append(const std::string& group_id, std::vector<coordinator_record> records,
                      const std::optional<txn_producer>& txn = std::nullopt);
    // `done` (on this shard) once everything appended to the group's
    // partition so far is on every ISR replica; REQUEST_TIMED_OUT after
    // offsets.commit.timeout.ms.
    void when_replicated(const std::string& group_id, std::function<void(error_code)> done);
    // Tombstones for `offsets` of the group, and for the group itself (the
    // records of its type) when `group_tombstone`. The caches are already updated: a failed
    // tombstone leaves a record that reappears on the next load, as in Kafka.
    void write_tombstones(const std::string& group_id,
                          const std::vector<storage::topic_partition>& offsets,
                          std::optional<group_type> group_tombstone);

  private:
    const group_config& _config;
    coordinator_runtime _runtime;
};

// How Kafka answers a coordinator write whose append failed, so that a client
// sees a coordinator error it retries rather than a partition's: `timed_out`
// for REQUEST_TIMED_OUT (a group write answers REBALANCE_IN_PROGRESS, a commit
// the timeout itself) and `too_large` for a batch over the limits
// (UNKNOWN_SERVER_ERROR, INVALID_COMMIT_OFFSET_SIZE).
error_code coordinator_append_error(error_code ec, error_code timed_out, error_code too_large);

}  // namespace samsa::coordinator
