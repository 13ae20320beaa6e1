#pragma once
// SyncGroup (key 14): the leader hands in the assignment, every member waits
// for its share (coordinator/group/).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler sync_group_handler();

}  // namespace samsa::server::handlers
