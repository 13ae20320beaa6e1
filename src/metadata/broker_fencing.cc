#include "metadata/broker_fencing.h"

#include <algorithm>
#include <functional>

namespace samsa::metadata {

node_id elect_leader(const std::vector<node_id>& replicas, const std::vector<node_id>& isr,
                     const std::function<bool(node_id)>& usable) {
    for (node_id r : replicas) {
        if (contains(isr, r) && usable(r)) {
            return r;
        }
    }
    return no_node;
}

std::vector<metadata_record> plan_fence_broker(
    const metadata_image& image, node_id broker_id,
    const std::function<bool(const std::string& topic)>& unclean_allowed) {
    std::vector<metadata_record> out;
    auto b = image.brokers.find(broker_id);
    if (b == image.brokers.end() || b->second.fenced) {
        return out;
    }
    protocol::fence_broker_record f;
    f.id = broker_id;
    f.epoch = b->second.epoch;
    out.emplace_back(f);
    auto usable = [&](node_id id) {
        if (id == broker_id) {
            return false;
        }
        auto it = image.brokers.find(id);
        return it != image.brokers.end() && !it->second.fenced;
    };
    for (const auto& [id, topic_ptr] : image.topics_by_id) {
        const topic_image& topic = *topic_ptr;
        for (const auto& p : topic.partitions) {
            if (!contains(p.isr, broker_id) && p.leader != broker_id) {
                continue;
            }
            protocol::partition_change_record c;
            c.topic_id = topic.id;
            c.partition_id = p.partition;
            std::vector<node_id> isr;
            for (node_id r : p.isr) {
                if (r != broker_id) {
                    isr.push_back(r);
                }
            }
            if (isr.empty()) {
                isr = p.isr;  // never empty: the last member stays, leaderless
            }
            if (isr != p.isr) {
                c.isr = isr;
            }
            if (p.leader == broker_id) {
                c.leader = elect_leader(p.replicas, isr, usable);
                if (!c.leader.is_valid() && unclean_allowed && unclean_allowed(topic.name)) {
                    // Unclean: a live replica outside the ISR leads, and the
                    // ISR restarts from it (records only the old ISR had are lost).
                    c.leader = elect_leader(p.replicas, p.replicas, usable);
                    if (c.leader.is_valid()) {
                        c.isr = std::vector<node_id>{c.leader};
                    }
                }
            }
            if (c.isr || c.leader != no_leader_change) {
                out.emplace_back(std::move(c));
            }
        }
    }
    return out;
}

std::vector<metadata_record> plan_unfence_broker(const metadata_image& image, node_id broker_id) {
    std::vector<metadata_record> out;
    auto b = image.brokers.find(broker_id);
    if (b == image.brokers.end() || !b->second.fenced) {
        return out;
    }
    protocol::unfence_broker_record u;
    u.id = broker_id;
    u.epoch = b->second.epoch;
    out.emplace_back(u);
    for (const auto& [id, topic_ptr] : image.topics_by_id) {
        const topic_image& topic = *topic_ptr;
        for (const auto& p : topic.partitions) {
            if (p.leader == no_node && contains(p.isr, broker_id)) {
                protocol::partition_change_record c;
                c.topic_id = topic.id;
                c.partition_id = p.partition;
                c.leader = broker_id;
                out.emplace_back(std::move(c));
            }
        }
    }
    return out;
}

}  // namespace samsa::metadata
