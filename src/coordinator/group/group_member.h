#pragma once
// One member of a classic group (Kafka's MemberMetadata / ClassicGroupMember):
// who it is, the assignment protocols it supports with their metadata (for
// consumers, the serialised subscription), the timeouts it asked for, the
// assignment the leader gave it, and the response it is waiting for, if any.
//
// A member waits for at most one JoinGroup and one SyncGroup response at a
// time; the callbacks hold them. Every callback is invoked exactly once: by
// the completion of the phase, or with an error when the member is removed,
// fenced or the group is unloaded.
//
// Threading: owned by its group, on the group's shard.
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "coordinator/group/group_api.h"

namespace samsa::coordinator {

using join_callback = std::function<void(join_group_result)>;
using sync_callback = std::function<void(sync_group_result)>;

class group_member {
  public:
    group_member(std::string member_id, std::optional<std::string> group_instance_id,
                 std::string client_id, std::string client_host, int32_t rebalance_timeout_ms,
                 int32_t session_timeout_ms, std::string protocol_type,
                 std::vector<member_protocol> protocols);

    const std::string& member_id() const { return _member_id; }
    // Static membership (KIP-345): a replaced static member takes a new id.
    void set_member_id(std::string id) { _member_id = std::move(id); }
    const std::optional<std::string>& group_instance_id() const { return _group_instance_id; }
    bool is_static_member() const { return _group_instance_id.has_value(); }
    const std::string& client_id() const { return _client_id; }
    const std::string& client_host() const { return _client_host; }
    int32_t rebalance_timeout_ms() const { return _rebalance_timeout_ms; }
    int32_t session_timeout_ms() const { return _session_timeout_ms; }
    const std::string& protocol_type() const { return _protocol_type; }
    const std::vector<member_protocol>& protocols() const { return _protocols; }

    // A rejoin may change the protocols and timeouts.
    void update(std::vector<member_protocol> protocols, int32_t rebalance_timeout_ms,
                int32_t session_timeout_ms);

    // The names of the protocols it supports, in preference order.
    std::set<std::string> protocol_names() const;
    // Its metadata for `protocol`, or nullopt if it does not support it.
    const bytes* metadata(const std::string& protocol) const;
    // Whether a JoinGroup with `protocols` changes nothing (Kafka's matches()):
    // same protocols, same order, same metadata.
    bool matches(const std::vector<member_protocol>& protocols) const;
    // Its vote in protocol selection: the first of its protocols, in its own
    // preference order, that is among `candidates` (seed inventory GRP-07).
    // Empty if none is (the caller only asks members that support one).
    std::string vote(const std::set<std::string>& candidates) const;

    const bytes& assignment() const { return _assignment; }
    void set_assignment(bytes a) { _assignment = std::move(a); }

    // ---- the responses it waits for
    bool is_awaiting_join() const { return bool(_awaiting_join); }
    bool is_awaiting_sync() const { return bool(_awaiting_sync); }
    void await_join(join_callback cb) { _awaiting_join = std::move(cb); }
    void await_sync(sync_callback cb) { _awaiting_sync = std::move(cb); }
    // Invokes and clears the callback; false if there was none.
    bool complete_join(join_group_result r);
    bool complete_sync(sync_group_result r);

    // ---- liveness (Kafka's heartbeatSatisfied and isNew)
    // A member added by this rebalance that has not had its join response
    // yet; it may expire while it waits (KIP-394).
    bool is_new = false;
    bool heartbeat_satisfied = false;
    // Whether the member has done what its session asks: members waiting for
    // a rebalance to complete need no heartbeats, except new ones.
    bool has_satisfied_heartbeat() const;

  private:
    std::string _member_id;
    std::optional<std::string> _group_instance_id;
    std::string _client_id;
    std::string _client_host;
    int32_t _rebalance_timeout_ms;
    int32_t _session_timeout_ms;
    std::string _protocol_type;
    std::vector<member_protocol> _protocols;
    bytes _assignment;
    join_callback _awaiting_join;
    sync_callback _awaiting_sync;
};

}  // namespace samsa::coordinator
