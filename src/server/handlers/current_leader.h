#pragma once
// KIP-951: a Produce (v10+) or Fetch (v16+) answered NOT_LEADER_OR_FOLLOWER
// (Fetch also FENCED_LEADER_EPOCH) tells the client the partition's current
// leader and leader epoch, and the response lists that leader's endpoint on
// the client's listener (NodeEndpoints), so the client can go there without
// a metadata round trip first. As Kafka's KafkaApis.getCurrentLeader: the
// image's leader and epoch (-1/-1 for a partition it does not know), and an
// endpoint only for a leader registered on this listener.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metadata/metadata_image.h"

namespace samsa::server::handlers {

struct current_leader {
    node_id id = no_node;
    int32_t epoch = -1;
};

inline current_leader current_leader_of(const metadata::metadata_image& image,
                                        const std::string& topic, int32_t partition) {
    const auto* t = image.topic(topic);
    if (!t || partition < 0 || size_t(partition) >= t->partitions.size()) {
        return {};
    }
    const auto& reg = t->partitions[size_t(partition)];
    return {reg.leader, reg.leader_epoch};
}

// Adds `leader`'s endpoint on `listener_name` to a response's NodeEndpoints
// once (`Endpoint`: the response's node_endpoint type).
template <typename Endpoint>
void add_leader_endpoint(std::vector<Endpoint>& out, const metadata::metadata_image& image,
                         node_id leader, const std::string& listener_name) {
    if (!leader.is_valid()) {
        return;
    }
    for (const auto& e : out) {
        if (e.node_id == leader) {
            return;
        }
    }
    auto b = image.brokers.find(leader);
    if (b == image.brokers.end()) {
        return;
    }
    const auto* ep = b->second.endpoint(listener_name);
    if (!ep) {
        return;
    }
    auto& e = out.emplace_back();
    e.node_id = leader;
    e.host = ep->host;
    e.port = ep->port;
    e.rack = b->second.rack;
}

}  // namespace samsa::server::handlers
