#pragma once
// The partition leader a client is shown (Metadata, DescribeTopicPartitions),
// as Kafka's KRaftMetadataCache shows it: a leader the client cannot reach on
// the listener it asked through is no leader to it, -1, with
// LEADER_NOT_AVAILABLE when the broker is not registered (or there is no
// leader), and LISTENER_NOT_FOUND when it is registered without that listener
// (LEADER_NOT_AVAILABLE for a Metadata request below v6, which predates it).
#include <cstdint>
#include <string>

#include "common/error.h"
#include "metadata/metadata_image.h"

namespace samsa::server::handlers {

struct visible_leader {
    node_id id = no_node;
    error_code error = error_code::none;
};

inline visible_leader visible_leader_of(const metadata::metadata_image& image, node_id leader,
                                        const std::string& listener_name,
                                        bool listener_not_found_known) {
    if (!leader.is_valid()) {
        return {no_node, error_code::leader_not_available};
    }
    auto b = image.brokers.find(leader);
    if (b == image.brokers.end()) {
        return {no_node, error_code::leader_not_available};
    }
    if (b->second.endpoint(listener_name) == nullptr) {
        return {no_node, listener_not_found_known ? error_code::listener_not_found
                                                  : error_code::leader_not_available};
    }
    return {leader, error_code::none};
}

}  // namespace samsa::server::handlers
