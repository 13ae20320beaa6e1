#pragma once
// InitProducerId (key 22, v0-5): a producer id and epoch for an idempotent
// producer (transactional id null): always a fresh id from this broker's
// producer_id_manager with epoch 0 — also when a v3+ producer names its
// current id and epoch (KIP-360), since Kafka bumps epochs only for
// transactional producers; an idempotent producer bumps its own epoch.
// Transactional ids need the transaction coordinator, which this broker does
// not run yet: they get COORDINATOR_NOT_AVAILABLE, what Kafka answers while no
// coordinator can host the id (clients retry until their init timeout).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler init_producer_id_handler();

}  // namespace samsa::server::handlers
