#pragma once
// DeleteGroups (key 42): removes empty groups and their offsets
// (NON_EMPTY_GROUP while members remain).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler delete_groups_handler();

}  // namespace samsa::server::handlers
