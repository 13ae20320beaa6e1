#pragma once
// DeleteTopics (key 20, v0-6): by name, and by topic id from v6, through the
// controller (metadata/topic_deletion.h). With delete.topic.enable=false every
// topic fails: INVALID_REQUEST before v3, TOPIC_DELETION_DISABLED from v3.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler delete_topics_handler();

}  // namespace samsa::server::handlers
