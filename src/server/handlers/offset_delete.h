#pragma once
// OffsetDelete (key 47): removes committed offsets of an empty group, or of
// topics a consumer group no longer subscribes to (KIP-496).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler offset_delete_handler();

}  // namespace samsa::server::handlers
