#pragma once
// Metadata (key 3): brokers, cluster id, controller, and topics with their
// partitions' leaders, replicas and ISR, from the current metadata image.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler metadata_handler();

}  // namespace samsa::server::handlers
