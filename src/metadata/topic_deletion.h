#pragma once
// DeleteTopics on the controller (Kafka's ControllerApis.deleteTopics and
// ReplicationControlManager.deleteTopics): topics by name (v0-5 topic_names,
// v6 topics[].name) or by id (v6), one RemoveTopicRecord each; the replica
// manager deletes the logs when it sees the topic gone from the image.
//
// Errors per entry, with Kafka's messages:
//   neither name nor id / both / a duplicate name or id / a name whose id was
//   also given                               INVALID_REQUEST
//   unknown name                             UNKNOWN_TOPIC_OR_PARTITION
//   unknown id                               UNKNOWN_TOPIC_ID
// Internal topics may be deleted, as in Kafka. delete.topic.enable=false is
// checked by the handler (its error depends on the request version).
#include "metadata/controller_plan.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"

namespace samsa::metadata {

controller_plan<protocol::delete_topics_response> plan_delete_topics(
    const controller_state& state, const protocol::delete_topics_request& request);

}  // namespace samsa::metadata
