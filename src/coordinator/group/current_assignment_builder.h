#pragma once
// The next state of a consumer group member on its way to its target
// assignment (KIP-848; Kafka's CurrentAssignmentBuilder). A member never gets
// a partition that another member still owns, and must revoke what its
// target takes away before it gets anything new:
//
//   STABLE at the target epoch: nothing to do.
//   It owns partitions its target does not have -> UNREVOKED_PARTITIONS:
//     keeps the rest, epoch unchanged, until a heartbeat shows it no longer
//     owns the revoked ones (or its rebalance timeout fences it).
//   Its target has partitions others still own -> UNRELEASED_PARTITIONS at
//     the target epoch, with what is free; it gets the rest once released.
//   Otherwise STABLE at the target epoch with the whole target.
#include <cstdint>
#include <functional>
#include <optional>

#include "coordinator/group/consumer_group_member.h"

namespace samsa::coordinator {

struct reconcile_input {
    int32_t target_epoch = 0;
    const topic_assignment* target = nullptr;
    // The partitions the member's heartbeat says it owns; nullopt when the
    // heartbeat did not say (unchanged since the last one).
    const std::optional<topic_assignment>* owned = nullptr;
    // The epoch of the member that owns a partition now, -1 when free.
    std::function<int32_t(const uuid&, int32_t)> partition_epoch;
};

// The member after this heartbeat's reconciliation step (its assigned,
// pending revocation, state and epochs updated).
consumer_group_member reconcile(const consumer_group_member& member, const reconcile_input& in);

}  // namespace samsa::coordinator
