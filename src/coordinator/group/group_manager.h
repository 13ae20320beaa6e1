#pragma once
// group_manager: the group coordinator of one reactor shard (Kafka's
// GroupCoordinator and GroupMetadataManager for the __consumer_offsets
// partitions this shard leads; docs/architecture.md, "Threads" and "Coordinators").
//
// A group lives on the shard that owns its __consumer_offsets partition
// (group_partitioner.h). Everything about the partition's groups - their
// state machines, sessions, pending responses, committed offsets, and the
// appends that persist them - happens here, on that shard's thread, so
// nothing locks. group_coordinator routes each request here.
//
// Partition lifecycle (from the replica manager's leadership listener), run
// by the coordinator runtime (coordinator/common/coordinator_runtime.h):
//   on_elected   -> loading: the log is replayed in chunks posted to the
//                   shard, every request for its groups gets
//                   COORDINATOR_LOAD_IN_PROGRESS; then loaded;
//   on_resigned  -> its groups are unloaded: Dead, and whatever waited on
//                   them answered NOT_COORDINATOR.
// Requests for a partition this shard does not lead get NOT_COORDINATOR.
//
// JoinGroup and SyncGroup may wait (for the other members, for the leader's
// assignment): they take a callback, invoked exactly once, possibly later,
// always on this shard. Every other operation answers at once.
//
// Persistence: group metadata after each completed rebalance (before the
// SyncGroup responses go out) and when a group empties, offsets on commit,
// tombstones on deletion and expiry, all appended to the partition's log as
// the coordinator's own batches (cluster::partition::append_internal). The
// append is synchronous on the shard: with a single replica the record is
// committed when append_internal returns.
//
// Threading: one instance per shard, used only on that shard's thread (tests
// drive one from their own thread with a fake clock).
#include <asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/partition.h"
#include "cluster/purgatory/purgatory.h"
#include "cluster/purgatory/purgatory_driver.h"
#include "coordinator/common/coordinator_runtime.h"
#include "coordinator/group/classic_group.h"
#include "coordinator/group/group_config.h"
#include "coordinator/group/group_coordinator_shard.h"
#include "protocol/generated/delete_groups_response.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/heartbeat_request.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"
#include "protocol/generated/list_groups_response.h"
#include "protocol/generated/sync_group_request.h"

namespace samsa::coordinator {

// What a request carries besides its body.
struct request_origin {
    std::string client_id;
    std::string client_host;  // "/127.0.0.1", as Kafka prints InetAddress
    int16_t api_version = 0;
};

// One partition of an OffsetCommit; `error` set beforehand (unknown topic,
// metadata too large) skips it.
struct offset_commit_item {
    storage::topic_partition tp;
    offset_and_metadata value;
    error_code error = error_code::none;
};

struct offset_fetch_result {
    error_code error = error_code::none;  // group level
    struct partition {
        storage::topic_partition tp;
        int64_t offset = -1;
        int32_t leader_epoch = -1;
        std::string metadata;
        error_code error = error_code::none;
    };
    std::vector<partition> partitions;
};

// One partition of an OffsetDelete; `error` set beforehand skips it.
struct offset_delete_item {
    storage::topic_partition tp;
    error_code error = error_code::none;
};

struct list_groups_filter {
    std::set<group_state> states;  // empty: any
    bool classic_type = true;      // false when a types filter excludes "classic"
};

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
    coordinator_runtime& runtime() { return _runtime; }

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

    // ---- the rebalance protocol (group_join.cc, group_membership.cc)
    void join_group(const protocol::join_group_request& req, const request_origin& origin,
                    join_callback cb);
    void sync_group(const protocol::sync_group_request& req, const request_origin& origin,
                    sync_callback cb);
    error_code heartbeat(const protocol::heartbeat_request& req);
    // Members as LeaveGroup v3+ names them (v0-v2: the one member_id).
    protocol::leave_group_response leave_group(
        const std::string& group_id,
        const std::vector<protocol::leave_group_request::member_identity>& members);

    // ---- offsets (group_offset_ops.cc)
    // `done` (on this shard) once everything appended to `group_id`'s offsets
    // partition so far is on every ISR replica (at once with a single one):
    // a commit is acknowledged only then, as Kafka appends with acks=all.
    // REQUEST_TIMED_OUT after offsets.commit.timeout.ms.
    void when_appends_replicated(const std::string& group_id, std::function<void(error_code)> done);

    // Generation -1 with no member id: a commit from outside group
    // management (simple consumer, admin), allowed while the group has no
    // members. Fills each item's error.
    // With `txn` (TxnOffsetCommit), the offsets are written in a transactional
    // batch of that producer and stay pending until its marker.
    error_code commit_offsets(const std::string& group_id, int32_t generation_id,
                              const std::string& member_id,
                              const std::optional<std::string>& group_instance_id,
                              std::vector<offset_commit_item>& items,
                              const std::optional<txn_producer>& txn = std::nullopt);
    // A transaction marker reached `partition` of __consumer_offsets: the
    // producer's pending offsets become the groups' (commit) or go.
    void complete_txn(int32_t partition, int64_t producer_id, bool commit);
    // `partitions` nullopt: every committed offset of the group.
    offset_fetch_result fetch_offsets(
        const std::string& group_id,
        const std::optional<std::vector<storage::topic_partition>>& partitions,
        bool require_stable);
    error_code delete_offsets(const std::string& group_id, std::vector<offset_delete_item>& items);

    // ---- administration (group_admin_ops.cc)
    // The groups of every loaded partition; `loading` set when a partition
    // of this shard is still loading.
    std::vector<protocol::list_groups_response::listed_group> list_groups(
        const list_groups_filter& filter, bool& loading) const;
    protocol::describe_groups_response::described_group describe_group(
        const std::string& group_id) const;
    error_code delete_group(const std::string& group_id);
    // Topics that were deleted: their offsets go (seed inventory OFS-07).
    void remove_offsets_of_topics(const std::set<std::string>& topics);
    // offsets.retention.minutes: removes expired offsets, and groups left
    // empty without offsets (Kafka's cleanupGroupMetadata). Returns how many
    // offsets were removed.
    size_t expire_offsets();

    // ---- called by the delayed operations
    void on_complete_join(const std::shared_ptr<classic_group>& group);
    void schedule_initial_join(const std::shared_ptr<classic_group>& group, int64_t delay_ms,
                               int64_t remaining_ms);
    void on_expire_heartbeat(const std::shared_ptr<classic_group>& group,
                             const std::string& member_id, bool is_pending);
    void on_expire_pending_sync(const std::shared_ptr<classic_group>& group, int32_t generation_id);

    // ---- observation (tests, logs)
    std::shared_ptr<classic_group> group(const std::string& group_id) const;
    size_t group_count() const;

  private:
    using group_ptr = std::shared_ptr<classic_group>;

    // ---- lookup
    int32_t partition_of(const std::string& group_id) const;
    // The group's partition once loaded, else nullptr.
    group_coordinator_shard* serving_partition(const std::string& group_id);
    // fn(partition, loading) for every partition this shard leads.
    void for_each_partition(const std::function<void(group_coordinator_shard&, bool)>& fn) const;
    group_ptr find_group(const std::string& group_id);
    group_ptr get_or_create_group(const std::string& group_id);
    void remove_dead_group(const std::string& group_id);

    // ---- loading and unloading (group_manager.cc; run by the coordinator
    // runtime through group_coordinator_shard)
    void finish_load(group_coordinator_shard& part, offsets_loader& loader);
    void unload_partition(group_coordinator_shard& part);
    void unload_group(classic_group& group);

    // ---- persistence (group_manager.cc)
    using record_kv = coordinator_record;
    // Appends the records as one batch to the group's partition. Errors as
    // the append's, mapped by the caller.
    error_code append(const std::string& group_id, std::vector<record_kv> records,
                      const std::optional<txn_producer>& txn = std::nullopt);
    // storeGroup: the group's metadata with `assignments`; Kafka's error
    // mapping for group writes.
    error_code store_group(classic_group& group, const std::map<std::string, bytes>& assignments);
    void write_tombstones(const std::string& group_id,
                          const std::vector<storage::topic_partition>& offsets,
                          bool group_tombstone);
    // After offsets of `group` were removed: tombstones for them, and an
    // empty group left without offsets goes too (Kafka's
    // cleanupGroupMetadata). Returns true if the group was removed.
    bool cleanup_group(group_coordinator_shard& part, const group_ptr& group,
                       const std::vector<storage::topic_partition>& removed);

    // ---- rebalance internals (group_join.cc, group_membership.cc)
    void join_unknown_member(const group_ptr& group, const protocol::join_group_request& req,
                             const request_origin& origin, join_callback cb);
    void join_known_member(const group_ptr& group, const protocol::join_group_request& req,
                           const request_origin& origin, join_callback cb);
    void join_static_member(const group_ptr& group, const protocol::join_group_request& req,
                            const request_origin& origin, const std::string& new_member_id,
                            join_callback cb);
    void add_member_and_rebalance(const group_ptr& group, const protocol::join_group_request& req,
                                  const request_origin& origin, const std::string& member_id,
                                  join_callback cb);
    void update_member_and_rebalance(const group_ptr& group, group_member& member,
                                     const protocol::join_group_request& req, join_callback cb);
    void maybe_prepare_rebalance(const group_ptr& group, const std::string& reason);
    void prepare_rebalance(const group_ptr& group, const std::string& reason);
    void remove_member_and_update_group(const group_ptr& group, const std::string& member_id,
                                        const std::string& reason);
    void remove_pending_member_and_update_group(const group_ptr& group,
                                                const std::string& member_id);
    void reset_and_propagate_assignment_error(classic_group& group, error_code ec);
    void propagate_assignment(classic_group& group,
                              const std::map<std::string, bytes>& assignments);
    void complete_and_schedule_next_heartbeat(const group_ptr& group, group_member& member,
                                              int64_t timeout_ms);
    void schedule_pending_member_expiration(const group_ptr& group, const std::string& member_id,
                                            int64_t timeout_ms);
    void remove_heartbeat(const std::string& group_id, const std::string& member_id);
    void schedule_pending_sync(const group_ptr& group);
    void complete_pending_sync(const std::string& group_id);
    // Kafka's generateMemberId: "<group.instance.id or client.id>-<uuid>".
    static std::string new_member_id(const std::string& client_id,
                                     const std::optional<std::string>& group_instance_id);

    void arm_expiration_timer();

    group_config _config;
    cluster::purgatory_driver& _driver;
    clock_fn _wall_clock;
    cluster::purgatory<std::string> _joins;
    cluster::purgatory<std::string> _syncs;
    cluster::purgatory<std::string> _heartbeats;
    // The __consumer_offsets partitions this shard leads, loaded and unloaded.
    coordinator_runtime _runtime;
    std::unique_ptr<callback_task> _expiration_task;
};

// Kafka's java.util.UUID.toString form ("8-4-4-4-12" lower-case hex) of a
// random uuid, for member ids.
std::string random_java_uuid_string();

}  // namespace samsa::coordinator
