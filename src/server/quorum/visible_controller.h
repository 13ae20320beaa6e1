#pragma once
// The controller id a client is shown (Metadata, DescribeCluster). KRaft
// brokers answer with a live broker id, since clients cannot reach the
// controllers: the active controller when it is also an unfenced broker with
// an endpoint on this listener (combined mode), else this node, else the
// lowest such broker, else -1. The id is always one the same response lists:
// librdkafka refreshes metadata while the controller is -1 but waits without
// refreshing on an id it has no address for, so an unlisted id would stall
// every admin call until the next periodic refresh.
#include <string>

#include "metadata/metadata_image.h"
#include "server/broker_context.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::quorum {

// `active_controller`: the Raft leader, or no_node while none is known.
inline node_id visible_controller_id(const metadata::metadata_image& image,
                                     const std::string& listener_name, node_id active_controller,
                                     node_id self) {
    auto reachable = [&](node_id id) {
        auto it = image.brokers.find(id);
        return it != image.brokers.end() && !it->second.fenced &&
               it->second.endpoint(listener_name) != nullptr;
    };
    if (reachable(active_controller)) {
        return active_controller;
    }
    if (reachable(self)) {
        return self;
    }
    for (const auto& [id, broker] : image.brokers) {
        if (reachable(id)) {
            return id;
        }
    }
    return no_node;
}

inline node_id visible_controller_id(const broker_context& b, const metadata::metadata_image& image,
                                     const std::string& listener_name) {
    const node_id leader = b.quorum ? b.quorum->leader().leader : no_node;
    return visible_controller_id(image, listener_name, leader, node_id{b.settings.node_id});
}

}  // namespace samsa::server::quorum
