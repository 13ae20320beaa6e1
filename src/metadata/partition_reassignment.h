#pragma once
// Partition reassignment on the controller, as KRaft does it (KIP-455,
// Kafka's ReplicationControlManager and PartitionReassignmentReplicas;
// docs/reassignment.md):
//
//   start    replicas = target + (current - target), adding = target - current,
//            removing = current - target. The adding replicas create the log
//            and fetch like any follower; the leader takes them into the ISR
//            once caught up (AlterPartition).
//   finish   as soon as every target replica is in the ISR (in the same change
//            as the AlterPartition that makes it so, or at once when it
//            already is): replicas = target, ISR = ISR ∩ target, adding and
//            removing cleared; a leader being removed hands over to the first
//            target replica in the ISR, and removing replicas always bumps the
//            leader epoch, so a removed replica's fetches are fenced. The
//            removed replicas delete their logs when they see the image.
//   cancel   (replicas null) back to current - adding, ISR ∩ that, with the
//            same leader rules; NO_REASSIGNMENT_IN_PROGRESS when none runs.
//
// A new target while one runs starts again from the current replicas (adding
// ones no longer wanted are removed). Errors per partition:
//   unknown topic or partition                 UNKNOWN_TOPIC_OR_PARTITION
//   empty, duplicate or unregistered replicas  INVALID_REPLICA_ASSIGNMENT
#include <optional>
#include <vector>

#include "metadata/controller_plan.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"

namespace samsa::metadata {

controller_plan<protocol::alter_partition_reassignments_response>
plan_alter_partition_reassignments(const controller_state& state,
                                   const protocol::alter_partition_reassignments_request& request);

// The change that finishes `p`'s reassignment once its ISR is `isr`, or none
// when no reassignment runs or a target replica is not in `isr` yet.
std::optional<protocol::partition_change_record> finish_reassignment(
    const metadata_image& image, const topic_image& topic, const partition_registration& p,
    const std::vector<node_id>& isr);

// The partitions of the image being reassigned, of the topics and
// partitions asked for (all with `topics` null).
protocol::list_partition_reassignments_response list_partition_reassignments(
    const metadata_image& image, const protocol::list_partition_reassignments_request& request);

}  // namespace samsa::metadata
