#pragma once
// JoinGroup (key 11): a member joins (or rejoins) a group and waits for the
// join phase of the rebalance to complete (coordinator/group/).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler join_group_handler();

}  // namespace samsa::server::handlers
