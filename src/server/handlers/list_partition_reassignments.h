#pragma once
// ListPartitionReassignments (key 46, v0; KIP-455): the reassignments in
// progress, from this broker's metadata image (what the controller
// committed, as far as this broker has it). DESCRIBE on the cluster.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler list_partition_reassignments_handler();

}  // namespace samsa::server::handlers
