#pragma once
// FindCoordinator (key 10): which broker coordinates a group (key type 0)
// or a transactional id (key type 1); v4+ asks for several keys at once.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler find_coordinator_handler();

}  // namespace samsa::server::handlers
