#pragma once
// consumer_group_manager: the consumer groups (KIP-848) of the
// __consumer_offsets partitions one shard leads, and the protocol that drives
// them, beside group_metadata_manager's classic groups (Kafka keeps both in
// its GroupMetadataManager; docs/consumer-groups.md).
//
// A member heartbeats (ConsumerGroupHeartbeat); each heartbeat
//   1. joins, updates or removes the member; a new member or a changed
//      subscription bumps the group epoch, and so does a change in what the
//      subscriptions resolve to (topics created or deleted, partitions
//      added, a regex matching a new topic);
//   2. recomputes the target assignment with the server-side assignor when
//      the group epoch is ahead of it;
//   3. moves the member one step toward its target (revocation first:
//      current_assignment_builder.h) and answers with its epoch and, when it
//      changed, its assignment.
// Each change is written to the group's partition as consumer group records
// (consumer_group_records.h) before the heartbeat is answered.
//
// Timers: a member that does not heartbeat within
// group.consumer.session.timeout.ms is fenced (removed, the group epoch
// bumped); one that does not revoke within its rebalance timeout too. A
// static member that left with epoch -2 keeps its place for its session.
//
// Classic members (KIP-848's online migration, docs/group-migration.md): a
// member of the classic protocol may join a consumer group with JoinGroup
// and is served there (consumer_group_classic.cc); a classic group with
// members becomes a consumer group when a consumer-protocol member joins it,
// and a consumer group whose last consumer-protocol member leaves becomes
// classic again (group_migration.cc), as group.consumer.migration.policy
// allows.
//
// Threading: one instance per shard, used only on that shard's thread.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/purgatory/purgatory_driver.h"
#include "coordinator/group/consumer_group.h"
#include "coordinator/group/group_api.h"
#include "coordinator/group/group_config.h"
#include "coordinator/group/group_member.h"
#include "coordinator/group/group_partitions.h"
#include "metadata/metadata_image.h"

namespace samsa::coordinator {

class classic_group;
class group_metadata_manager;

class consumer_group_manager {
  public:
    using clock_fn = std::function<int64_t()>;

    // `classic`: the classic groups' manager, which a conversion hands a
    // group to or takes one from.
    consumer_group_manager(const group_config& config, cluster::purgatory_driver& driver,
                           clock_fn wall_clock, group_partitions& partitions,
                           group_metadata_manager& classic);
    consumer_group_manager(const consumer_group_manager&) = delete;
    consumer_group_manager& operator=(const consumer_group_manager&) = delete;

    // ConsumerGroupHeartbeat (consumer_group_heartbeat.cc); `image` resolves
    // the subscriptions.
    consumer_group_heartbeat_result heartbeat(const consumer_group_heartbeat_params& req,
                                              const request_origin& origin,
                                              const metadata::metadata_image& image);
    // ---- the classic protocol in a consumer group with members
    // (consumer_group_classic.cc; Kafka's classicGroup*ToConsumerGroup).
    // Each answers at once: a classic member's rebalance is its own.
    void classic_join(consumer_group& g, const join_group_params& req, const request_origin& origin,
                      const metadata::metadata_image& image, join_callback cb);
    void classic_sync(consumer_group& g, const sync_group_params& req, sync_callback cb);
    error_code classic_heartbeat(consumer_group& g, const heartbeat_params& req);
    leave_group_result classic_leave(consumer_group& g, const std::vector<leaving_member>& members);

    // ConsumerGroupDescribe: topic ids are the caller's to name.
    described_consumer_group describe(const std::string& group_id) const;

    // ---- partition lifecycle
    // Loaded groups are served; their members' sessions start now.
    void on_loaded(group_coordinator_shard& part,
                   std::vector<std::unique_ptr<consumer_group>> groups);
    // The partition's consumer groups stop: their timers go.
    void on_unloaded(group_coordinator_shard& part);

    // ---- observation (tests)
    std::shared_ptr<consumer_group> group(const std::string& group_id) const;

  private:
    struct heartbeat_context;

    // The consumer group for a heartbeat: created when the member joins (a
    // classic group is converted), else an error.
    result<std::shared_ptr<consumer_group>> group_for_heartbeat(
        const std::string& group_id, bool create, const metadata::metadata_image& image,
        std::vector<coordinator_record>& out);

    // ---- conversions (group_migration.cc)
    // Kafka's validateOnlineUpgrade and convertToConsumerGroup: the classic
    // group's members become classic members of a new consumer group at its
    // generation, keeping their assignments; their pending JoinGroup and
    // SyncGroup are answered REBALANCE_IN_PROGRESS. GROUP_ID_NOT_FOUND when
    // the policy, the protocol type or the size forbids it.
    result<std::shared_ptr<consumer_group>> upgrade(shared_group& slot,
                                                    const metadata::metadata_image& image,
                                                    std::vector<coordinator_record>& out);
    // Kafka's validateOnlineDowngradeWithFencedMember and
    // convertToClassicGroup: when `leaving` is the last member of the
    // consumer protocol, the others classic and the policy allows it, the
    // group becomes a classic group of them, which rebalances. The records
    // are appended here. True when it did.
    bool maybe_downgrade(consumer_group& g, const std::string& leaving);
    // Whether the group may become classic once `leaving` (a member of the
    // consumer protocol, every other member classic) is gone, `staying`
    // members left: the policy and group.max.size.
    bool may_downgrade(const consumer_group& g, const std::string& leaving, size_t staying) const;
    // The conversion: the members but `leaving` make a classic group at the
    // group epoch, which rebalances if `rebalance`. nullptr when the
    // partition is no longer served.
    std::shared_ptr<classic_group> downgrade(consumer_group& g, const std::string& leaving,
                                             bool rebalance);
    consumer_group_heartbeat_result leave(consumer_group& g,
                                          const consumer_group_heartbeat_params& req);
    // The member this heartbeat is from, created or taken over (static
    // members) on a join; NONE or the error to answer.
    error_code member_for_heartbeat(heartbeat_context& ctx);
    // Resolves the subscriptions against `image`; true when what they resolve
    // to changed.
    bool refresh_metadata(consumer_group& g, const metadata::metadata_image& image);
    // Recomputes every member's target; the assignment epoch becomes the
    // group epoch.
    error_code compute_target(consumer_group& g, std::vector<coordinator_record>& out);
    // Removes a member (left, fenced, timed out): its records tombstoned, the
    // group epoch bumped.
    void remove_member(consumer_group& g, const std::string& member_id,
                       std::vector<coordinator_record>& out);
    void fence_member(const std::string& group_id, const std::string& member_id,
                      const char* reason);

    // The broker's group.consumer.* settings, for what a group does not set.
    config::group_config_values default_configs() const;
    // The group's session timeout and heartbeat interval.
    config::group_config_values configs_of(const consumer_group& g) const;
    void schedule_session(consumer_group& g, consumer_group_member& m);
    void schedule_rebalance_timeout(consumer_group& g, consumer_group_member& m);
    // A classic member's: told to rejoin, it must within its rebalance
    // timeout (kept if already counting); joined, it must sync within it.
    void schedule_join_timeout(consumer_group& g, consumer_group_member& m);
    void schedule_sync_timeout(consumer_group& g, consumer_group_member& m);
    // A timer that fences the member when it fires (posted: the member owns
    // the timer that fires).
    std::unique_ptr<callback_task> fencing_timer(const consumer_group& g,
                                                 const consumer_group_member& m,
                                                 const char* reason);
    // A static member's instance returns under `new_id` (with `protocol`):
    // the old member goes (its records tombstoned) and the new id takes its
    // target, so nobody else's partitions move.
    void hand_over_target(consumer_group& g, const std::string& old_id, const std::string& new_id,
                          const std::string& instance_id, const char* protocol,
                          std::vector<coordinator_record>& out);
    // After a member's heartbeat or join (either protocol) updated it: the
    // group epoch (bumped with `bump`, the member's subscription changed, or
    // when what the subscriptions resolve to did), the target assignment,
    // and one reconciliation step of the member toward its target, given
    // what it says it `owned`. True when its assignment changed.
    result<bool> advance_member(consumer_group& g, const std::string& member_id, bool bump,
                                bool is_new, const std::optional<topic_assignment>& owned,
                                const metadata::metadata_image& image,
                                std::vector<coordinator_record>& records);
    error_code append(const std::string& group_id, std::vector<coordinator_record> records);

    const group_config& _config;
    cluster::purgatory_driver& _driver;
    clock_fn _wall_clock;
    group_partitions& _partitions;
    group_metadata_manager& _classic;
};

}  // namespace samsa::coordinator
