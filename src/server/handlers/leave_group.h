#pragma once
// LeaveGroup (key 13): members leave a group, which rebalances; v3+ names
// several members, possibly by group.instance.id alone (KIP-345).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler leave_group_handler();

}  // namespace samsa::server::handlers
