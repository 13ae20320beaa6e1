#pragma once
// Heartbeat (key 12): a member's session stays alive; REBALANCE_IN_PROGRESS
// tells it to rejoin (coordinator/group/).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler heartbeat_handler();

}  // namespace samsa::server::handlers
