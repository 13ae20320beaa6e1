#pragma once
// CreatePartitions on the controller (Kafka's
// ReplicationControlManager.createPartitions): grows a topic to `count`
// partitions, the new ones with the replication factor of partition 0, placed
// by assign_replicas() or by the request's assignments. Errors per topic:
//   duplicate name                          INVALID_REQUEST
//   unknown topic                           UNKNOWN_TOPIC_OR_PARTITION
//   count equal to, or below, the current   INVALID_PARTITIONS
//   assignments not one per new partition, or invalid
//                                           INVALID_REPLICA_ASSIGNMENT
//   not enough usable brokers               INVALID_REPLICATION_FACTOR
// validate_only records nothing.
#include "metadata/controller_plan.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"

namespace samsa::metadata {

controller_plan<protocol::create_partitions_response> plan_create_partitions(
    const controller_state& state, const protocol::create_partitions_request& request);

}  // namespace samsa::metadata
