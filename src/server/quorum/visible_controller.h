#pragma once
// The controller id a client is shown (Metadata, DescribeCluster): the active
// controller when it is also an unfenced broker clients can reach (combined
// mode), else this node, as KRaft brokers answer with a broker id.
#include "metadata/metadata_image.h"
#include "server/broker_context.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::quorum {

inline int32_t visible_controller_id(const broker_context& b,
                                     const metadata::metadata_image& image) {
    if (b.quorum) {
        const int32_t leader = b.quorum->leader().leader.value();
        auto it = image.brokers.find(leader);
        if (it != image.brokers.end() && !it->second.fenced) {
            return leader;
        }
    }
    return b.settings.node_id;
}

}  // namespace samsa::server::quorum
