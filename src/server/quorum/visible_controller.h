#pragma once
// The controller id a client is shown (Metadata, DescribeCluster): this
// broker, as KRaft brokers answer with a live broker rather than the active
// controller (clients cannot reach controllers; any broker forwards their
// admin requests, and this one is alive, since it answered). Naming the Raft
// leader instead sent clients to a controller that had just died: a node that
// had not yet heard of the election named the dead one, librdkafka waited for
// it to come back, and CreateTopics timed out after a failover.
#include "metadata/metadata_image.h"
#include "server/broker_context.h"

namespace samsa::server::quorum {

inline int32_t visible_controller_id(const broker_context& b, const metadata::metadata_image&) {
    return b.settings.node_id;
}

}  // namespace samsa::server::quorum
