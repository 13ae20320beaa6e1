#pragma once
// classic_group: the state of one consumer group under the classic rebalance
// protocol (Kafka's GroupMetadata / ClassicGroup; docs/architecture.md, "Coordinators", seed
// inventory GRP-05..19): its state (group_state.h), generation, members,
// leader, chosen protocol and committed offsets.
//
// This class holds the state and its invariants; the rebalance protocol that
// drives it (joins, syncs, heartbeats, timeouts, persistence) is in
// group_metadata_manager, its offsets' by offset_metadata_manager. Invariants:
//   * the leader, when set, is a member;
//   * every static member's instance id maps to its current member id;
//   * a member id is in at most one of members and pending members;
//   * Dead is terminal.
//
// Threading: owned by the group_metadata_manager of its shard; not thread-safe.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "coordinator/group/group.h"
#include "coordinator/group/group_member.h"
#include "coordinator/group/group_state.h"

namespace samsa::coordinator {

// The protocol type consumers use (ConsumerProtocol.PROTOCOL_TYPE).
inline constexpr const char* consumer_protocol_type = "consumer";

class classic_group final : public group {
  public:
    classic_group(std::string group_id, group_state initial, int64_t now_ms);

    group_type type() const override { return group_type::classic; }
    bool is_empty() const override { return _state == group_state::empty; }
    bool is_dead() const override { return _state == group_state::dead; }
    void mark_dead(int64_t now_ms) override { transition_to(group_state::dead, now_ms); }
    std::string state_name() const override;
    std::string protocol_type_name() const override { return _protocol_type.value_or(""); }
    group_state state() const { return _state; }
    bool is(group_state s) const { return _state == s; }
    // Moves to `s` (which must be a valid transition) and notes when.
    void transition_to(group_state s, int64_t now_ms);
    // When the group entered its current state (GroupMetadataValue v2+).
    std::optional<int64_t> current_state_timestamp() const { return _current_state_timestamp; }

    int32_t generation_id() const { return _generation_id; }
    const std::optional<std::string>& protocol_type() const { return _protocol_type; }
    const std::optional<std::string>& protocol_name() const { return _protocol_name; }
    const std::optional<std::string>& leader_id() const { return _leader_id; }
    bool is_leader(const std::string& member_id) const { return _leader_id == member_id; }

    // Restores what a GroupMetadataValue recorded (the loader).
    void restore(int32_t generation_id, std::optional<std::string> protocol_type,
                 std::optional<std::string> protocol_name, std::optional<std::string> leader_id,
                 std::optional<int64_t> current_state_timestamp);
    // Restores a member as it was stored (assignment included), no callbacks.
    void restore_member(std::unique_ptr<group_member> m);

    // ---- members
    size_t size() const { return _members.size(); }
    bool empty() const { return _members.empty(); }
    bool has(const std::string& member_id) const { return _members.count(member_id) > 0; }
    group_member* get(const std::string& member_id);
    const std::map<std::string, std::unique_ptr<group_member>>& members() const { return _members; }
    // Adds a member waiting for its join response on `cb` (none when empty).
    // The first member of an empty group sets the protocol type and leads.
    void add(std::unique_ptr<group_member> m, join_callback cb = {});
    // Removes a member; a response it still waits for is answered with
    // UNKNOWN_MEMBER_ID. If it led, another member (if any) leads.
    void remove(const std::string& member_id);

    // ---- members that have an id but have not joined with it yet (KIP-394:
    // JoinGroup v4+ answers MEMBER_ID_REQUIRED and expects them back)
    void add_pending_member(const std::string& member_id) { _pending_members.insert(member_id); }
    bool is_pending_member(const std::string& member_id) const {
        return _pending_members.count(member_id) > 0;
    }
    bool remove_pending_member(const std::string& member_id) {
        return _pending_members.erase(member_id) > 0;
    }
    size_t pending_members() const { return _pending_members.size(); }

    // ---- static membership (KIP-345)
    std::optional<std::string> static_member_id(const std::string& group_instance_id) const;
    // A request naming `group_instance_id` with a member id other than the
    // one the instance holds now is from a fenced (older) instance.
    bool is_static_member_fenced(const std::optional<std::string>& group_instance_id,
                                 const std::string& member_id) const;
    // Gives the instance's member a new id; whatever the old id waited for is
    // answered FENCED_INSTANCE_ID. Returns the member, now under `new_id`.
    group_member* replace_static_member(const std::string& group_instance_id,
                                        const std::string& old_id, const std::string& new_id);

    // ---- the join phase
    // Stable, CompletingRebalance and Empty groups may start a rebalance.
    bool can_rebalance() const;
    size_t num_awaiting_join() const;
    // Every member has rejoined and no member id is pending.
    bool has_all_members_joined() const;
    std::vector<std::string> not_yet_rejoined_members() const;
    // The longest rebalance timeout of the members: how long the join phase
    // waits (seed inventory GRP-09).
    int32_t rebalance_timeout_ms() const;
    // If the leader has not rejoined, makes a member that has the leader.
    // False when no member has rejoined.
    bool maybe_elect_new_joined_leader();
    // Whether a member with these protocols may join: an empty group takes any
    // non-empty list; otherwise the type must match and one of the protocols
    // must be supported by every member.
    bool supports_protocols(const std::string& protocol_type,
                            const std::set<std::string>& protocols) const;
    // The protocol every member supports that gets most of the members'
    // votes (seed inventory GRP-07); ties go to the leader's preference.
    std::string select_protocol() const;
    // Ends the join phase: the next generation, its protocol, and
    // CompletingRebalance (or Empty without members).
    void init_next_generation(int64_t now_ms);
    // The join response of `member_id` in the current generation: the leader
    // gets every member's metadata for the chosen protocol.
    join_group_result join_response(const std::string& member_id) const;
    // Set when a member joins the first generation during the initial delay
    // (group.initial.rebalance.delay.ms), which then waits a little longer.
    bool new_member_added = false;

    // ---- the sync phase: members that have had their join response but not
    // sent SyncGroup yet
    void set_all_members_pending_sync();
    void remove_pending_sync_member(const std::string& member_id) {
        _pending_sync_members.erase(member_id);
    }
    void clear_pending_sync_members() { _pending_sync_members.clear(); }
    const std::set<std::string>& pending_sync_members() const { return _pending_sync_members; }

    // ---- consumer groups: the topics the members subscribe to, from their
    // ConsumerProtocolSubscription; nullopt when unknown (another protocol
    // type, or metadata that does not parse).
    const std::optional<std::set<std::string>>& subscribed_topics() const {
        return _subscribed_topics;
    }
    bool is_subscribed_to_topic(const std::string& topic) const override;

    // ---- committed offsets
    // Kafka's removeExpiredOffsets: an empty group's offsets expire
    // `retention_ms` after it became empty; a stable consumer group's only
    // for topics no member subscribes to any more; a group used only for
    // commits (no protocol type), `retention_ms` after each commit.
    std::vector<storage::topic_partition> expire_offsets(int64_t now_ms,
                                                         int64_t retention_ms) override;

  private:
    void compute_subscribed_topics();

    group_state _state;
    std::optional<int64_t> _current_state_timestamp;
    int32_t _generation_id = 0;
    std::optional<std::string> _protocol_type;
    std::optional<std::string> _protocol_name;
    std::optional<std::string> _leader_id;
    std::map<std::string, std::unique_ptr<group_member>> _members;
    std::map<std::string, std::string> _static_members;  // instance id -> member id
    std::set<std::string> _pending_members;
    std::set<std::string> _pending_sync_members;
    std::optional<std::set<std::string>> _subscribed_topics;
};

// The group as a classic group, or nullptr when it is of another type.
inline std::shared_ptr<classic_group> as_classic(const shared_group& g) {
    return g && g->type() == group_type::classic ? std::static_pointer_cast<classic_group>(g)
                                                 : nullptr;
}

// A JoinGroup response carrying only an error (and the member id it is for).
join_group_result join_error(const std::string& member_id, error_code ec);
// A SyncGroup response carrying only an error.
sync_group_result sync_error(error_code ec);

}  // namespace samsa::coordinator
