#pragma once
// ListGroups (key 16): the groups this broker coordinates, filtered by state
// (v4+, KIP-518) and type (v5+, KIP-848: only "classic" groups exist here).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler list_groups_handler();

}  // namespace samsa::server::handlers
