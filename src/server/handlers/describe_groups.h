#pragma once
// DescribeGroups (key 15): state, protocol and members of groups; member
// metadata and assignments once a group is Stable.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_groups_handler();

}  // namespace samsa::server::handlers
