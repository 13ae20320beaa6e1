#pragma once
// UnregisterBroker (key 64, v0; KIP-631): an operator removes a broker that is
// gone for good from the cluster's registrations (kafka-cluster.sh
// unregister), forwarded to the active controller. ALTER on the cluster.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler unregister_broker_handler();

}  // namespace samsa::server::handlers
