#include "metadata/leader_election.h"

#include <algorithm>
#include <map>

namespace samsa::metadata {

bool broker_alive(const metadata_image& image, node_id id) {
    auto it = image.brokers.find(id);
    return it != image.brokers.end() && !it->second.fenced && !it->second.in_controlled_shutdown;
}

election_outcome elect(const metadata_image& image, const topic_image& topic,
                       const partition_registration& p, election_type type) {
    election_outcome out;
    protocol::partition_change_record c;
    c.topic_id = topic.id;
    c.partition_id = p.partition;
    if (type == election_type::preferred) {
        const node_id preferred = p.replicas.empty() ? no_node : p.replicas.front();
        if (p.leader == preferred) {
            out.error = error_code::election_not_needed;
            return out;
        }
        if (!preferred.is_valid() || !contains(p.isr, preferred) ||
            !broker_alive(image, preferred)) {
            out.error = error_code::preferred_leader_not_available;
            return out;
        }
        c.leader = preferred;
        out.change = c;
        return out;
    }
    // Unclean: only when no ISR member can lead; any live replica then does,
    // and the ISR restarts from it (what it has is all there is).
    if (p.leader.is_valid() && broker_alive(image, p.leader)) {
        out.error = error_code::election_not_needed;
        return out;
    }
    for (node_id r : p.replicas) {
        if (contains(p.isr, r) && broker_alive(image, r)) {
            c.leader = r;  // a clean choice exists
            out.change = c;
            return out;
        }
    }
    for (node_id r : p.replicas) {
        if (broker_alive(image, r)) {
            c.leader = r;
            c.isr = std::vector<node_id>{r};
            out.change = c;
            return out;
        }
    }
    out.error = error_code::eligible_leaders_not_available;
    return out;
}

elect_leaders_plan plan_elect_leaders(const metadata_image& image,
                                      const protocol::elect_leaders_request& req, int16_t version) {
    elect_leaders_plan plan;
    const auto type =
        version >= 1 && req.election_type == 1 ? election_type::unclean : election_type::preferred;
    auto add = [&](const std::string& name, const topic_image* topic, int32_t partition,
                   bool report_all) {
        error_code ec = error_code::none;
        if (!topic || partition < 0 || size_t(partition) >= topic->partitions.size()) {
            ec = error_code::unknown_topic_or_partition;
        } else {
            auto o = elect(image, *topic, topic->partitions[size_t(partition)], type);
            ec = o.error;
            if (o.change) {
                plan.records.emplace_back(*o.change);
            }
        }
        if (!report_all && ec != error_code::none) {
            return;
        }
        auto* r = plan.response.replica_election_results.empty() ||
                          plan.response.replica_election_results.back().topic != name
                      ? &plan.response.replica_election_results.emplace_back()
                      : &plan.response.replica_election_results.back();
        r->topic = name;
        auto& pr = r->partition_result.emplace_back();
        pr.partition_id = partition;
        pr.error_code = to_wire(ec);
        pr.error_message =
            ec == error_code::none ? std::nullopt : std::optional<std::string>(error_message(ec));
    };
    if (!req.topic_partitions) {
        for (const auto& [name, topic] : image.topics_by_name) {
            for (const auto& p : topic->partitions) {
                add(name, topic.get(), p.partition, false);
            }
        }
        return plan;
    }
    for (const auto& t : *req.topic_partitions) {
        const topic_image* topic = image.topic(t.topic);
        for (int32_t p : t.partitions) {
            add(t.topic, topic, p, true);
        }
    }
    return plan;
}

std::vector<metadata_record> plan_auto_leader_rebalance(const metadata_image& image,
                                                        int32_t imbalance_percentage) {
    // Per preferred broker: its partitions, and those it does not lead.
    std::map<node_id, std::vector<std::pair<const topic_image*, const partition_registration*>>>
        preferred;
    std::map<node_id, size_t> not_leading;
    for (const auto& [name, topic] : image.topics_by_name) {
        for (const auto& p : topic->partitions) {
            if (p.replicas.empty()) {
                continue;
            }
            const node_id b = p.replicas.front();
            preferred[b].emplace_back(topic.get(), &p);
            if (p.leader != b) {
                ++not_leading[b];
            }
        }
    }
    std::vector<metadata_record> out;
    for (const auto& [broker, parts] : preferred) {
        if (!broker_alive(image, broker)) {
            continue;
        }
        const double ratio = double(not_leading[broker]) / double(parts.size());
        if (ratio * 100.0 <= double(imbalance_percentage)) {
            continue;
        }
        for (const auto& [topic, p] : parts) {
            auto o = elect(image, *topic, *p, election_type::preferred);
            if (o.change) {
                out.emplace_back(*o.change);
            }
        }
    }
    return out;
}

}  // namespace samsa::metadata
