#pragma once
// group_metadata_manager: the groups of the __consumer_offsets partitions one
// shard leads, and the classic rebalance protocol that drives them (Kafka's
// GroupMetadataManager; docs/architecture.md, "Coordinators").
//
// It owns the groups' state machines, their sessions and pending responses,
// and writes the group metadata records (after each completed rebalance,
// before the SyncGroup responses go out, and when a group empties). Committed
// offsets are offset_metadata_manager's; it asks this manager for the group a
// commit is for, and to keep a committing member's session alive.
//
// JoinGroup and SyncGroup may wait (for the other members, for the leader's
// assignment): they take a callback, invoked exactly once, possibly later,
// always on this shard. Every other operation answers at once.
//
// Threading: one instance per shard, used only on that shard's thread (tests
// drive one from their own thread with a fake clock).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/purgatory/purgatory.h"
#include "cluster/purgatory/purgatory_driver.h"
#include "coordinator/group/classic_group.h"
#include "coordinator/group/group_api.h"
#include "coordinator/group/group_config.h"
#include "coordinator/group/group_partitions.h"

namespace samsa::coordinator {

struct list_groups_filter {
    // Lower-case state names (classic and consumer groups name theirs
    // differently; ListGroups compares them case-insensitively); empty: any.
    std::set<std::string> states;
    std::set<group_type> types;  // empty: any
};

class group_metadata_manager {
  public:
    using clock_fn = std::function<int64_t()>;
    using group_ptr = std::shared_ptr<classic_group>;

    // `driver` times the purgatories; `wall_clock` gives state timestamps.
    group_metadata_manager(const group_config& config, cluster::purgatory_driver& driver,
                           clock_fn wall_clock, group_partitions& partitions);
    group_metadata_manager(const group_metadata_manager&) = delete;
    group_metadata_manager& operator=(const group_metadata_manager&) = delete;

    // ---- the rebalance protocol (group_join.cc, group_membership.cc)
    void join_group(const join_group_params& req, const request_origin& origin, join_callback cb);
    void sync_group(const sync_group_params& req, const request_origin& origin, sync_callback cb);
    error_code heartbeat(const heartbeat_params& req);
    // Members as LeaveGroup v3+ names them (v0-v2: the one member_id).
    leave_group_result leave_group(const std::string& group_id,
                                   const std::vector<leaving_member>& members);

    // ---- administration (group_admin_ops.cc)
    // The groups of every loaded partition; `loading` set when a partition
    // of this shard is still loading.
    std::vector<listed_group> list_groups(const list_groups_filter& filter, bool& loading) const;
    described_group describe_group(const std::string& group_id) const;
    // DeleteGroups' checks (Kafka's validateDeleteGroup), for a group of any
    // type: NONE when it exists, is served here and has no members.
    error_code validate_delete_group(const std::string& group_id);
    // The group is Dead and gone from its partition (its records are the
    // caller's to tombstone).
    void remove_group(const std::string& group_id);

    // ---- what offset_metadata_manager asks
    group_ptr find_group(const std::string& group_id);
    // A commit from outside group management creates an offsets-only group.
    group_ptr get_or_create_group(const std::string& group_id);
    // A commit keeps the member's session alive (Kafka's
    // rescheduleClassicGroupMemberHeartbeat).
    void reschedule_heartbeat(const group_ptr& group, group_member& member);
    // Kafka's maybeDeleteGroup: an empty group (of any type) without offsets
    // and without members-to-be goes (Dead, removed from `part`). True if it
    // went.
    bool maybe_remove_group(group_coordinator_shard& part, const shared_group& g);
    // The served group of any type, or nullptr.
    shared_group find_any_group(const std::string& group_id);

    // ---- partition lifecycle (group_metadata_manager.cc)
    // The groups a load read, now served; members keep their assignment if
    // they heartbeat within their session. Returns the offsets they hold.
    size_t on_loaded(group_coordinator_shard& part,
                     std::vector<std::unique_ptr<classic_group>> groups);
    // The partition's groups become Dead; whatever waited on them is answered
    // NOT_COORDINATOR.
    void on_unloaded(group_coordinator_shard& part);

    // ---- KIP-848's online migration (consumer_group_manager converts)
    // The group is Dead; whatever its members wait for is answered `answer`
    // (NOT_COORDINATOR when unloaded, REBALANCE_IN_PROGRESS when it became
    // a consumer group), and its timers find it Dead.
    void retire_group(classic_group& group, error_code answer);
    // A consumer group became `group` (already in its partition): its
    // members' sessions start, and with `rebalance` they rejoin in one.
    void adopt_downgraded_group(const group_ptr& group, bool rebalance);

    // ---- called by the delayed operations
    void on_complete_join(const group_ptr& group);
    void schedule_initial_join(const group_ptr& group, int64_t delay_ms, int64_t remaining_ms);
    void on_expire_heartbeat(const group_ptr& group, const std::string& member_id, bool is_pending);
    void on_expire_pending_sync(const group_ptr& group, int32_t generation_id);

    // ---- observation (tests, logs)
    group_ptr group(const std::string& group_id) const;
    size_t group_count() const;

  private:
    void remove_dead_group(const std::string& group_id);
    // storeGroup: the group's metadata with `assignments`; Kafka's error
    // mapping for group writes.
    error_code store_group(classic_group& group, const std::map<std::string, bytes>& assignments);

    // ---- rebalance internals (group_join.cc, group_membership.cc)
    void join_unknown_member(const group_ptr& group, const join_group_params& req,
                             const request_origin& origin, join_callback cb);
    void join_known_member(const group_ptr& group, const join_group_params& req,
                           const request_origin& origin, join_callback cb);
    void join_static_member(const group_ptr& group, const join_group_params& req,
                            const request_origin& origin, const std::string& new_member_id,
                            join_callback cb);
    void add_member_and_rebalance(const group_ptr& group, const join_group_params& req,
                                  const request_origin& origin, const std::string& member_id,
                                  join_callback cb);
    void update_member_and_rebalance(const group_ptr& group, group_member& member,
                                     const join_group_params& req, join_callback cb);
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

    const group_config& _config;
    clock_fn _wall_clock;
    group_partitions& _partitions;
    cluster::purgatory<std::string> _joins;
    cluster::purgatory<std::string> _syncs;
    cluster::purgatory<std::string> _heartbeats;
};

// Kafka's java.util.UUID.toString form ("8-4-4-4-12" lower-case hex) of a
// random uuid, for member ids.
std::string random_java_uuid_string();

}  // namespace samsa::coordinator
