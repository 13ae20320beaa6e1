#pragma once
// CreatePartitions (key 37, v0-3): grows topics through the controller
// (metadata/partition_creation.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler create_partitions_handler();

}  // namespace samsa::server::handlers
