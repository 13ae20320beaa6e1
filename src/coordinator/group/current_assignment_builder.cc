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

// Kafka's computeNextAssignment: from what the member has, toward `target`.
consumer_group_member next_assignment(const consumer_group_member& m, const reconcile_input& in) {
    const topic_assignment& target = *in.target;
    consumer_group_member out = m.clone();
    topic_assignment keep = assignment_intersection(m.assigned, target);
    topic_assignment revoke = assignment_minus(m.assigned, target);
    if (!assignment_empty(revoke) && still_owns_any(*in.owned, revoke)) {
        // Revocation first: the epoch stays until the member confirms.
        out.state = member_state::unrevoked_partitions;
        out.assigned = std::move(keep);
        out.pending_revocation = std::move(revoke);
        out.settle_assignment_epochs();
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
    // What it kept keeps the epoch it got it at; what is new has this one.
    out.settle_assignment_epochs();
    return out;
}

}  // namespace

consumer_group_member reconcile(const consumer_group_member& member, const reconcile_input& in) {
    switch (member.state) {
        case member_state::unrevoked_partitions:
            // Waiting for the member to give partitions up: a heartbeat
            // without them moves it on, toward the latest target.
            if (!still_owns_any(*in.owned, member.pending_revocation)) {
                consumer_group_member released = member.clone();
                released.pending_revocation.clear();
                released.settle_assignment_epochs();
                return next_assignment(released, in);
            }
            return member.clone();
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
            return member.clone();
    }
    return member.clone();
}

}  // namespace samsa::coordinator
