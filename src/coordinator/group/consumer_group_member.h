#pragma once
// A member of a consumer group under the KIP-848 protocol (Kafka's
// ConsumerGroupMember): what it subscribes to, as its heartbeats say, and
// where it stands in the reconciliation toward its target assignment.
//
// A member's epoch is the group epoch of the target assignment it has
// reached; `assigned` is what it may consume now, `pending_revocation` what
// it must give up before it may have more (revocation before assignment,
// so that a partition never has two owners).
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/timing_wheel.h"
#include "common/uuid.h"

namespace samsa::coordinator {

// Partitions by topic id, as the protocol and the records carry them.
using topic_assignment = std::map<uuid, std::set<int32_t>>;

// One assignment protocol a classic member supports, with its metadata (for
// consumers, the serialised ConsumerProtocolSubscription).
struct member_protocol {
    std::string name;
    bytes metadata;

    bool operator==(const member_protocol&) const = default;
};

// What a member that joined with JoinGroup (the classic protocol) keeps in a
// consumer group (KIP-848's online migration, Kafka's ClassicMemberMetadata):
// its session timeout, since it has no consumer-protocol session, and its
// protocols, to answer its JoinGroup and SyncGroup in their format and to
// turn it back into a classic member.
struct classic_member_metadata {
    int32_t session_timeout_ms = 0;
    std::vector<member_protocol> supported_protocols;

    bool operator==(const classic_member_metadata&) const = default;
};

// Kafka's MemberState, with its record values (ConsumerGroupCurrentMember-
// AssignmentValue.State).
enum class member_state : int8_t {
    stable = 0,
    // It still owns partitions that its target gives to others: it must
    // revoke them first.
    unrevoked_partitions = 1,
    // Its target names partitions that others have not released yet.
    unreleased_partitions = 2,
    unknown = -1,
};

// "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS", "UNKNOWN".
const char* member_state_name(member_state s);

struct consumer_group_member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    std::optional<std::string> server_assignor;
    int32_t rebalance_timeout_ms = -1;
    // Set for a member of the classic protocol.
    std::optional<classic_member_metadata> classic;

    int32_t member_epoch = 0;
    int32_t previous_member_epoch = -1;
    member_state state = member_state::stable;
    topic_assignment assigned;
    topic_assignment pending_revocation;
    // KIP-1251: for each partition of `assigned` and `pending_revocation`,
    // the member epoch at which the member got it. An offset commit from an
    // older epoch of the member is taken for the partitions it had then.
    std::map<std::pair<uuid, int32_t>, int32_t> assignment_epochs;

    // When it is expected to heartbeat next (wall clock ms; not persisted):
    // the assignor takes partitions from the member that hears of it
    // soonest. Unknown (a classic member, or loaded): never.
    int64_t heartbeat_due_ms = std::numeric_limits<int64_t>::max();

    // Timers (not persisted): the session (group.consumer.session.timeout.ms)
    // and, while revoking, the rebalance timeout.
    std::unique_ptr<callback_task> session_timer;
    std::unique_ptr<callback_task> rebalance_timer;
    // A classic member's: it must rejoin within its rebalance timeout once
    // told REBALANCE_IN_PROGRESS, and sync within it after joining.
    std::unique_ptr<callback_task> join_timer;
    std::unique_ptr<callback_task> sync_timer;

    // The member without its timers (which only the group's copy owns).
    consumer_group_member clone() const;

    // The member epoch at which it got the partition; nullopt when it has
    // it neither assigned nor pending revocation.
    std::optional<int32_t> assignment_epoch_of(const uuid& topic, int32_t partition) const;
    // Keeps `assignment_epochs` in step with its partitions: one it has
    // without an epoch takes the one it had in `before`, if it had it there,
    // else its member epoch (0 at least: a static member that left has -2);
    // one it no longer has goes.
    void settle_assignment_epochs(const consumer_group_member* before = nullptr);

    // A static member that left with epoch -2 keeps its assignment for its
    // session, for its next instance (KIP-345 with KIP-848).
    bool uses_classic_protocol() const { return classic.has_value(); }
    bool has_left_temporarily() const { return member_epoch == -2; }
    bool subscribes_to_anything() const {
        return !subscribed_topic_names.empty() || subscribed_topic_regex.has_value();
    }
};

// Whether two versions of a member differ in nothing its member record
// (ConsumerGroupMemberMetadataValue) holds.
bool same_member_metadata(const consumer_group_member& a, const consumer_group_member& b);

// The partitions of `a` not in `b`, and their union.
topic_assignment assignment_minus(const topic_assignment& a, const topic_assignment& b);
topic_assignment assignment_intersection(const topic_assignment& a, const topic_assignment& b);
bool assignment_empty(const topic_assignment& a);
size_t assignment_size(const topic_assignment& a);

}  // namespace samsa::coordinator
