#pragma once
// ListOffsets (key 2): earliest (-2), latest (-1), max timestamp (-3), earliest
// local (-4) or the first offset at/after a timestamp, per partition, with the
// leader epoch of the answer (v4+).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler list_offsets_handler();

}  // namespace samsa::server::handlers
