#pragma once
// AlterPartitionReassignments (key 45, v0; KIP-455): starts or cancels
// partition reassignments through the controller
// (metadata/partition_reassignment.h). ALTER on the cluster.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler alter_partition_reassignments_handler();

}  // namespace samsa::server::handlers
