#pragma once
// ElectLeaders (key 43, v0-2): preferred or unclean leader election for the
// named partitions, or for every partition (KIP-183, KIP-460); run by the
// active controller, forwarded there from any broker.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler elect_leaders_handler();

}  // namespace samsa::server::handlers
