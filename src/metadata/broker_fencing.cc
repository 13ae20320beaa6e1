#include "metadata/broker_fencing.h"

#include <algorithm>
#include <functional>

namespace samsa::metadata {

namespace {

bool contains(const std::vector<int32_t>& v, int32_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

int32_t elect_leader(const std::vector<int32_t>& replicas, const std::vector<int32_t>& isr,
                     const std::function<bool(int32_t)>& usable) {
    for (int32_t r : replicas) {
        if (contains(isr, r) && usable(r)) {
            return r;
        }
    }
    return -1;
}

std::vector<metadata_record> plan_fence_broker(
    const metadata_image& image, int32_t broker_id,
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
    auto usable = [&](int32_t id) {
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
            std::vector<int32_t> isr;
            for (int32_t r : p.isr) {
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
                if (c.leader < 0 && unclean_allowed && unclean_allowed(topic.name)) {
                    // Unclean: a live replica outside the ISR leads, and the
                    // ISR restarts from it (records only the old ISR had are lost).
                    c.leader = elect_leader(p.replicas, p.replicas, usable);
                    if (c.leader >= 0) {
                        c.isr = std::vector<int32_t>{c.leader};
                    }
                }
            }
            if (c.isr || c.leader != -2) {
                out.emplace_back(std::move(c));
            }
        }
    }
    return out;
}

std::vector<metadata_record> plan_unfence_broker(const metadata_image& image, int32_t broker_id) {
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
            if (p.leader == -1 && contains(p.isr, broker_id)) {
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
