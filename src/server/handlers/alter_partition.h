#pragma once
// AlterPartition (key 56, controller listener): a partition leader asks the
// active controller to change its ISR (KIP-497); metadata/isr_change.h.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler alter_partition_handler();

}  // namespace samsa::server::handlers
