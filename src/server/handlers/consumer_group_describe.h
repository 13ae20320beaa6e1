#pragma once
// ConsumerGroupDescribe (key 69, v0; KIP-848): consumer groups with their
// epochs, members, and each member's assignment and target.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler consumer_group_describe_handler();

}  // namespace samsa::server::handlers
