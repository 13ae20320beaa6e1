#pragma once
// Fetch (key 1) for consumers: sessions (KIP-227), the byte limits with the
// "first batch always whole" rule (KIP-74), long polling on min_bytes /
// max_wait_ms, and zero-copy responses (segment bytes go out with sendfile).
// Planning is in server/fetch/fetch_plan.h, reading and assembling here.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler fetch_handler();

}  // namespace samsa::server::handlers
