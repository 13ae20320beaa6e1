#pragma once
// AlterPartition (KIP-497) on the controller: a partition leader asks to change
// its ISR. Accepted only from the current leader, in the current leader epoch
// and partition epoch, with replicas of the partition, and (for members it
// adds) brokers that are registered and not fenced; the change is one
// PartitionChangeRecord, and the answer carries the partition as it will be.
// Errors as Kafka's controller gives them: STALE_BROKER_EPOCH (request level),
// UNKNOWN_TOPIC_ID / UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER,
// FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, INVALID_REQUEST,
// INELIGIBLE_REPLICA.
#include <vector>

#include "metadata/metadata_image.h"
#include "metadata/metadata_record_serde.h"
#include "protocol/generated/alter_partition_request.h"
#include "protocol/generated/alter_partition_response.h"

namespace samsa::metadata {

struct isr_change_plan {
    protocol::alter_partition_response response;
    std::vector<metadata_record> records;
};

isr_change_plan plan_alter_partition(const metadata_image& image,
                                     const protocol::alter_partition_request& request,
                                     int16_t version);

}  // namespace samsa::metadata
