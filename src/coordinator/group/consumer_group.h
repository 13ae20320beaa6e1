#pragma once
// consumer_group: a group under the KIP-848 consumer protocol (Kafka's
// ConsumerGroup): its epochs, members, target assignment and which member
// owns each partition now. The protocol that drives it is
// consumer_group_manager's; this class keeps the state and its invariants:
//   * a partition is owned (assigned or pending revocation) by at most one
//     member, and partition_epoch() says by which member epoch;
//   * every static member's instance id maps to its member id;
//   * assignment_epoch <= group_epoch; the group is Assigning while the
//     target assignment lags the group epoch.
//
// Threading: owned by its partition, on the partition's shard.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/config/group_config.h"
#include "common/error.h"
#include "coordinator/group/consumer_group_member.h"
#include "coordinator/group/group.h"

namespace samsa::coordinator {

// The first OffsetCommit version whose generation field is a member epoch.
inline constexpr int16_t first_member_epoch_offset_commit_version = 9;

enum class consumer_group_state { empty, assigning, reconciling, stable, dead };

// Kafka's names: "Empty", "Assigning", "Reconciling", "Stable", "Dead".
const char* consumer_group_state_name(consumer_group_state s);

// A topic the group subscribes to, as the metadata knows it now.
struct subscribed_topic {
    uuid id;
    int32_t partitions = 0;
    bool operator==(const subscribed_topic&) const = default;
};
// Every topic some member subscribes to (by name or by regex), by name.
using subscription_metadata = std::map<std::string, subscribed_topic>;

// What an offset commit of a consumer group's member may write (Kafka's
// CommitPartitionValidator): `error` refuses the whole commit; else each
// partition is checked on its own.
struct offset_commit_validation {
    error_code error = error_code::none;
    // KIP-1251: a commit at an epoch older than the member's is taken for
    // the partitions the member had at that epoch, and refused (`stale`) for
    // the others: a member whose epoch moved on while it committed is not
    // fenced for partitions it still has.
    std::optional<int32_t> older_epoch;
    std::map<std::pair<uuid, int32_t>, int32_t> assignment_epochs;
    error_code stale = error_code::stale_member_epoch;

    error_code check(const uuid& topic, int32_t partition) const;

    static offset_commit_validation refuse(error_code ec) {
        offset_commit_validation v;
        v.error = ec;
        return v;
    }
};

class consumer_group final : public group {
  public:
    explicit consumer_group(std::string group_id) : group(std::move(group_id)) {}

    group_type type() const override { return group_type::consumer; }
    bool is_empty() const override { return _members.empty() && !_dead; }
    bool is_dead() const override { return _dead; }
    void mark_dead(int64_t) override { _dead = true; }
    std::string state_name() const override { return consumer_group_state_name(state()); }
    std::string protocol_type_name() const override { return "consumer"; }
    bool is_subscribed_to_topic(const std::string& topic) const override;
    // Kafka's: an offset expires `retention_ms` after its commit, unless a
    // member subscribes to its topic.
    std::vector<storage::topic_partition> expire_offsets(int64_t now_ms,
                                                         int64_t retention_ms) override;

    consumer_group_state state() const;

    // ---- epochs
    int32_t group_epoch() const { return _group_epoch; }
    void set_group_epoch(int32_t e) { _group_epoch = e; }
    int32_t assignment_epoch() const { return _assignment_epoch; }
    void set_assignment_epoch(int32_t e) { _assignment_epoch = e; }

    // ---- members
    size_t size() const { return _members.size(); }
    consumer_group_member* get(const std::string& member_id);
    const consumer_group_member* get(const std::string& member_id) const;
    const std::map<std::string, consumer_group_member>& members() const { return _members; }
    // The member id an instance id holds, if any.
    std::optional<std::string> static_member_id(const std::string& instance_id) const;
    // Adds or replaces the member, keeping partition ownership and the
    // static members in step; its timers are kept when it replaces itself.
    consumer_group_member& update_member(consumer_group_member m);
    // Removes the member: its partitions are free, its target goes.
    void remove_member(const std::string& member_id);
    // Every member's timers go (the group is unloaded or converted).
    void drop_timers();

    // ---- partition ownership (Kafka's currentPartitionEpoch)
    // The epoch of the member owning the partition, -1 when nobody does.
    int32_t partition_epoch(const uuid& topic, int32_t partition) const;

    // ---- target assignment (by member id)
    const std::map<std::string, topic_assignment>& target() const { return _target; }
    const topic_assignment& target_of(const std::string& member_id) const;
    void set_target(const std::string& member_id, topic_assignment a);
    void remove_target(const std::string& member_id) { _target.erase(member_id); }

    // ---- subscriptions
    // Every topic name a member subscribes to explicitly.
    std::set<std::string> subscribed_topic_names() const;
    // Every regex a member subscribes with.
    std::set<std::string> subscribed_regexes() const;
    const subscription_metadata& metadata() const { return _metadata; }
    void set_metadata(subscription_metadata m) { _metadata = std::move(m); }
    // What each regex resolved to when the metadata was last refreshed.
    std::map<std::string, std::set<std::string>> resolved_regexes;
    // The metadata image (its offset) the metadata was refreshed from, -1
    // for none: a subscription change resets it.
    int64_t refreshed_at_image = -1;
    // False for a group loaded from its partition until its metadata is
    // first refreshed: the metadata is not stored (it is the image's), so
    // that refresh changes it without the topics having changed.
    bool metadata_established = true;
    // The group's session timeout and heartbeat interval (its KIP-848 group
    // configs over the broker's defaults) as the last heartbeat found them in
    // the metadata image; unset until a heartbeat after a load.
    std::optional<config::group_config_values> configs;
    // The topic ids a member subscribes to, by name or regex, that exist.
    std::set<uuid> subscribed_topic_ids(const consumer_group_member& m) const;
    // The server assignor most members ask for, if any asks.
    std::optional<std::string> preferred_server_assignor() const;

    // ---- members of the classic protocol (KIP-848's online migration)
    size_t classic_member_count() const;
    // Kafka's supportsClassicProtocols: a JoinGroup may join with
    // `protocols` when its type is "consumer" and one of them is supported by
    // every classic member (any, while there is none).
    bool supports_classic_protocols(const std::string& protocol_type,
                                    const std::vector<member_protocol>& protocols) const;
    // Every member but `member_id` uses the classic protocol, and it does not.
    bool all_members_use_classic_protocol_except(const std::string& member_id) const;
    // A member waiting for partitions (UNRELEASED_PARTITIONS) that another
    // member still owns; false once they are all free.
    bool waiting_on_unreleased_partition(const consumer_group_member& m) const;

    // ---- offsets (Kafka's ConsumerGroup.validateOffsetCommit / Fetch)
    // Epoch -1 without members: an admin's or a simple consumer's commit.
    // Else the member must exist (UNKNOWN_MEMBER_ID). A classic member must
    // name its current epoch (its generation: ILLEGAL_GENERATION); a member
    // of the consumer protocol its current epoch or, for each partition, one
    // at which it had the partition already (KIP-1251; STALE_MEMBER_EPOCH,
    // or ILLEGAL_GENERATION in a TxnOffsetCommit, which has no
    // STALE_MEMBER_EPOCH). `api_version`: OffsetCommit's, which a
    // consumer-protocol member must send at v9 or above
    // (UNSUPPORTED_VERSION); TxnOffsetCommit and classic members have no
    // such floor.
    offset_commit_validation validate_offset_commit(const std::string& member_id,
                                                    const std::optional<std::string>& instance_id,
                                                    int32_t member_epoch, bool transactional,
                                                    int16_t api_version) const;
    error_code validate_offset_fetch(const std::string& member_id, int32_t member_epoch) const;

  private:
    void add_partition_epochs(const topic_assignment& a, int32_t epoch);
    void remove_partition_epochs(const topic_assignment& a);

    bool _dead = false;
    int32_t _group_epoch = 0;
    int32_t _assignment_epoch = 0;
    std::map<std::string, consumer_group_member> _members;
    std::map<std::string, std::string> _static_members;  // instance id -> member id
    std::map<std::string, topic_assignment> _target;
    std::map<std::pair<uuid, int32_t>, int32_t> _partition_epochs;
    subscription_metadata _metadata;
};

}  // namespace samsa::coordinator
