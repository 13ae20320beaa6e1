#pragma once
// ConsumerGroupHeartbeat (key 68, v0-v1; KIP-848): a consumer group member
// joins, stays, leaves and learns its assignment (coordinator/group/
// consumer_group_manager.h). v1 adds SubscribedTopicRegex.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler consumer_group_heartbeat_handler();

}  // namespace samsa::server::handlers
