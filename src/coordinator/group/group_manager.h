#pragma once
// group_manager: the group coordinator of one reactor shard, for the
// __consumer_offsets partitions this shard leads (docs/architecture.md,
// "Threads" and "Coordinators"). It wires Kafka's two halves of a group
// coordinator to the coordinator runtime, as Kafka's GroupCoordinatorShard
// does:
//   group_partitions         the partitions, the runtime that loads them,
//                            and how records are appended to them;
//   group_metadata_manager   groups and the classic rebalance protocol;
//   consumer_group_manager   consumer groups (KIP-848);
//   offset_metadata_manager  committed offsets, retention.
// group_coordinator routes each request to the manager of the group's shard
// and calls the half that serves it; what touches both halves (loading,
// unloading, DeleteGroups) is here.
//
// A group lives on the shard that owns its __consumer_offsets partition
// (group_partitioner.h), so nothing locks.
//
// Partition lifecycle (from the replica manager's leadership listener), run
// by the coordinator runtime:
//   on_elected   -> loading: the log is replayed in chunks posted to the
//                   shard, every request for its groups gets
//                   COORDINATOR_LOAD_IN_PROGRESS; then loaded;
//   on_resigned  -> its groups are unloaded: Dead, and whatever waited on
//                   them answered NOT_COORDINATOR.
// Requests for a partition this shard does not lead get NOT_COORDINATOR.
//
// Threading: one instance per shard, used only on that shard's thread (tests
// drive one from their own thread with a fake clock).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cluster/partition.h"
#include "cluster/purgatory/purgatory_driver.h"
#include "coordinator/group/consumer_group_manager.h"
#include "coordinator/group/group_config.h"
#include "coordinator/group/group_metadata_manager.h"
#include "coordinator/group/group_partitions.h"
#include "coordinator/group/offset_metadata_manager.h"

namespace samsa::coordinator {

class group_manager {
  public:
    using clock_fn = std::function<int64_t()>;

    // `driver` times the purgatories (and is the shard's executor);
    // `wall_clock` gives commit and state timestamps.
    group_manager(group_config config, cluster::purgatory_driver& driver, clock_fn wall_clock);
    ~group_manager();
    group_manager(const group_manager&) = delete;
    group_manager& operator=(const group_manager&) = delete;

    const group_config& config() const { return _config; }
    coordinator_runtime& runtime() { return _partitions.runtime(); }
    group_metadata_manager& groups() { return _groups; }
    const group_metadata_manager& groups() const { return _groups; }
    offset_metadata_manager& offsets() { return _offsets; }
    consumer_group_manager& consumers() { return _consumers; }
    const consumer_group_manager& consumers() const { return _consumers; }

    // ---- the classic protocol, for a group of either type: a consumer group
    // with members serves its classic members itself (KIP-848's online
    // migration), every other group is group_metadata_manager's.
    void join_group(const join_group_params& req, const request_origin& origin,
                    const metadata::metadata_image& image, join_callback cb);
    void sync_group(const sync_group_params& req, const request_origin& origin, sync_callback cb);
    error_code heartbeat(const heartbeat_params& req);
    leave_group_result leave_group(const std::string& group_id,
                                   const std::vector<leaving_member>& members);

    // ---- partition lifecycle
    // This shard now leads __consumer_offsets-`partition`: load it. Loading
    // runs in steps posted to the driver's executor.
    void on_elected(int32_t partition, cluster::partition* log);
    void on_resigned(int32_t partition);
    // NONE when this shard serves the group, else COORDINATOR_LOAD_IN_PROGRESS
    // or NOT_COORDINATOR.
    error_code coordinator_status(const std::string& group_id) const;
    bool is_loading(int32_t partition) const;
    bool is_loaded(int32_t partition) const;
    bool any_loading() const;

    // `done` (on this shard) once everything appended to `group_id`'s offsets
    // partition so far is on every ISR replica (at once with a single one):
    // a commit is acknowledged only then, as Kafka appends with acks=all.
    // REQUEST_TIMED_OUT after offsets.commit.timeout.ms.
    void when_appends_replicated(const std::string& group_id, std::function<void(error_code)> done);

    // DeleteGroups (Kafka's GroupCoordinatorShard.deleteGroups): the group's
    // offsets and the group itself go, tombstoned in one append.
    error_code delete_group(const std::string& group_id);

  private:
    // The group, when it is a consumer group with members.
    std::shared_ptr<consumer_group> consumer_group_with_members(const std::string& group_id);
    void finish_load(group_coordinator_shard& part, offsets_loader& loader);
    void unload(group_coordinator_shard& part);
    void arm_expiration_timer();

    group_config _config;
    cluster::purgatory_driver& _driver;
    clock_fn _wall_clock;
    group_partitions _partitions;
    group_metadata_manager _groups;
    consumer_group_manager _consumers;
    offset_metadata_manager _offsets;
    std::unique_ptr<callback_task> _expiration_task;
};

}  // namespace samsa::coordinator
