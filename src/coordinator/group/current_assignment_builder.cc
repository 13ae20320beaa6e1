#include "coordinator/group/current_assignment_builder.h"

namespace samsa::coordinator {

namespace {

// Whether the member, as its heartbeat says, still owns any of `revoking`.
// A heartbeat that does not say proves nothing.
bool still_owns_any(const std::optional<topic_assignment>& owned,
                    const topic_assignment& revoking) {
    if (!owned) {
        return true;
    }
    return !assignment_empty(assignment_intersection(*owned, revoking));
}

consumer_group_member copy_of(const consumer_group_member& m) {
    consumer_group_member out;
    out.member_id = m.member_id;
    out.instance_id = m.instance_id;
    out.rack_id = m.rack_id;
    out.client_id = m.client_id;
    out.client_host = m.client_host;
    out.subscribed_topic_names = m.subscribed_topic_names;
    out.subscribed_topic_regex = m.subscribed_topic_regex;
    out.server_assignor = m.server_assignor;
    out.rebalance_timeout_ms = m.rebalance_timeout_ms;
    out.member_epoch = m.member_epoch;
    out.previous_member_epoch = m.previous_member_epoch;
    out.state = m.state;
    out.assigned = m.assigned;
    out.pending_revocation = m.pending_revocation;
    return out;
}

// Kafka's computeNextAssignment: from what the member has, toward `target`.
consumer_group_member next_assignment(const consumer_group_member& m, const reconcile_input& in) {
    const topic_assignment& target = *in.target;
    consumer_group_member out = copy_of(m);
    topic_assignment keep = assignment_intersection(m.assigned, target);
    topic_assignment revoke = assignment_minus(m.assigned, target);
    if (!assignment_empty(revoke) && still_owns_any(*in.owned, revoke)) {
        // Revocation first: the epoch stays until the member confirms.
        out.state = member_state::unrevoked_partitions;
        out.assigned = std::move(keep);
        out.pending_revocation = std::move(revoke);
        return out;
    }
    // Whatever it had to revoke is gone (or was never owned): the new
    // partitions that nobody owns any more are its.
    topic_assignment wanted = assignment_minus(target, keep);
    bool unreleased = false;
    for (const auto& [topic, parts] : wanted) {
        for (int32_t p : parts) {
            const int32_t owner_epoch = in.partition_epoch(topic, p);
            if (owner_epoch == -1) {
                keep[topic].insert(p);
            } else {
                unreleased = true;
            }
        }
    }
    out.previous_member_epoch = m.member_epoch;
    out.member_epoch = in.target_epoch;
    out.assigned = std::move(keep);
    out.pending_revocation.clear();
    out.state = unreleased ? member_state::unreleased_partitions : member_state::stable;
    return out;
}

}  // namespace

consumer_group_member reconcile(const consumer_group_member& member, const reconcile_input& in) {
    switch (member.state) {
        case member_state::unrevoked_partitions:
            // Waiting for the member to give partitions up: a heartbeat
            // without them moves it on, toward the latest target.
            if (!still_owns_any(*in.owned, member.pending_revocation)) {
                consumer_group_member released = copy_of(member);
                released.pending_revocation.clear();
                return next_assignment(released, in);
            }
            return copy_of(member);
        case member_state::unreleased_partitions:
            // Others may have released what it waits for.
            return next_assignment(member, in);
        case member_state::stable:
        case member_state::unknown:
            if (member.member_epoch != in.target_epoch) {
                return next_assignment(member, in);
            }
            if (member.state == member_state::unknown) {
                return next_assignment(member, in);
            }
            return copy_of(member);
    }
    return copy_of(member);
}

}  // namespace samsa::coordinator
