#pragma once
// CreateTopics (key 19, v0-7): topics with partitions, replication factor,
// explicit assignments and configs, created by the controller (rules and
// errors: metadata/topic_creation.h). v5+ answers with the topic id, partition
// count, replication factor and effective configs.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler create_topics_handler();

}  // namespace samsa::server::handlers
