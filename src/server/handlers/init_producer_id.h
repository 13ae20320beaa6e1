#pragma once
// InitProducerId (key 22, v0-5). For an idempotent producer (transactional
// id null): always a fresh id from this broker's producer_id_manager with
// epoch 0 — also when a v3+ producer names its current id and epoch
// (KIP-360), since Kafka bumps epochs only for transactional producers; an
// idempotent producer bumps its own epoch. For a transactional id: the
// transaction coordinator's id and bumped epoch (coordinator/txn/txn_manager.h),
// which fences the id's previous producer.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler init_producer_id_handler();

}  // namespace samsa::server::handlers
