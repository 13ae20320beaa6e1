#pragma once
// BrokerHeartbeat (key 63, controller listener): keeps a broker's session with
// the active controller, reports how far it has replayed the metadata log,
// and asks to be unfenced, fenced or shut down (KIP-631).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler broker_heartbeat_handler();

}  // namespace samsa::server::handlers
