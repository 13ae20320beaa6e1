#pragma once
// AllocateProducerIds (key 67, controller listener): a broker's next block of
// producer ids from the active controller (KIP-730), for InitProducerId.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler allocate_producer_ids_handler();

}  // namespace samsa::server::handlers
