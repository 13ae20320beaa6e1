#pragma once
// OffsetFetch (key 9): a group's committed offsets, from the coordinator's
// cache; v8+ asks for several groups at once, v7+ may require stable offsets.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler offset_fetch_handler();

}  // namespace samsa::server::handlers
