#include "metadata/partition_reassignment.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "metadata/leader_election.h"

namespace samsa::metadata {

namespace {

using protocol::alter_partition_reassignments_request;
using protocol::alter_partition_reassignments_response;

// `a` without the members of `b`, in `a`'s order.
std::vector<node_id> minus(const std::vector<node_id>& a, const std::vector<node_id>& b) {
    std::vector<node_id> out;
    for (node_id x : a) {
        if (!contains(b, x)) {
            out.push_back(x);
        }
    }
    return out;
}

bool reassigning(const partition_registration& p) {
    return !p.adding_replicas.empty() || !p.removing_replicas.empty();
}

// The change that leaves `p` with exactly `replicas`: the ISR within them
// (all of them when none of the ISR stays: Kafka's unclean revert), no
// reassignment, and a leader among them. Dropping replicas bumps the leader
// epoch even when the leader stays, so that the dropped ones are fenced.
protocol::partition_change_record settle(const metadata_image& image, const topic_image& topic,
                                         const partition_registration& p,
                                         const std::vector<node_id>& replicas,
                                         const std::vector<node_id>& isr) {
    protocol::partition_change_record c;
    c.topic_id = topic.id;
    c.partition_id = p.partition;
    c.replicas = replicas;
    c.adding_replicas.emplace();
    c.removing_replicas.emplace();
    std::vector<node_id> next_isr = minus(isr, minus(isr, replicas));
    if (next_isr.empty()) {
        next_isr = replicas;
    }
    c.isr = next_isr;
    if (!contains(next_isr, p.leader)) {
        c.leader = no_node;
        for (node_id r : replicas) {
            if (contains(next_isr, r) && broker_alive(image, r)) {
                c.leader = r;
                break;
            }
        }
    } else if (!minus(p.replicas, replicas).empty()) {
        c.leader = p.leader;
    }
    return c;
}

// A target the controller can take: not empty, no broker twice, every broker
// registered. The reason it cannot (Kafka's validateManualPartitionAssignment,
// which walks the brokers in id order), or an empty string.
std::string invalid_target(const metadata_image& image, const std::vector<node_id>& target) {
    if (target.empty()) {
        return "The manual partition assignment includes an empty replica list.";
    }
    std::vector<node_id> sorted = target;
    std::sort(sorted.begin(), sorted.end());
    std::optional<node_id> previous;
    for (node_id r : sorted) {
        if (!image.brokers.count(r)) {
            return fmt::format(
                "The manual partition assignment includes broker {}, but no such broker is "
                "registered.",
                r);
        }
        if (previous == r) {
            return fmt::format(
                "The manual partition assignment includes the broker {} more than once.", r);
        }
        previous = r;
    }
    return {};
}

}  // namespace

std::optional<protocol::partition_change_record> finish_reassignment(
    const metadata_image& image, const topic_image& topic, const partition_registration& p,
    const std::vector<node_id>& isr) {
    if (!reassigning(p)) {
        return std::nullopt;
    }
    const auto target = minus(p.replicas, p.removing_replicas);
    for (node_id r : target) {
        if (!contains(isr, r)) {
            return std::nullopt;
        }
    }
    return settle(image, topic, p, target, isr);
}

controller_plan<alter_partition_reassignments_response> plan_alter_partition_reassignments(
    const controller_state& state, const alter_partition_reassignments_request& request) {
    controller_plan<alter_partition_reassignments_response> plan;
    const metadata_image& image = state.image;
    std::set<std::pair<std::string, int32_t>> seen;
    for (const auto& t : request.topics) {
        auto& rt = plan.response.responses.emplace_back();
        rt.name = t.name;
        const topic_image* topic = image.topic(t.name);
        for (const auto& rp : t.partitions) {
            auto& out = rt.partitions.emplace_back();
            out.partition_index = rp.partition_index;
            out.error_message = std::nullopt;
            auto fail = [&](error_code ec, std::string message) {
                out.error_code = to_wire(ec);
                out.error_message = std::move(message);
            };
            // Kafka's messages (ReplicationControlManager.alterPartitionReassignment).
            if (!topic) {
                fail(error_code::unknown_topic_or_partition,
                     "Unable to find a topic named " + t.name + ".");
                continue;
            }
            if (rp.partition_index < 0 || size_t(rp.partition_index) >= topic->partitions.size()) {
                fail(error_code::unknown_topic_or_partition,
                     fmt::format("Unable to find partition {}:{}.", t.name, rp.partition_index));
                continue;
            }
            if (!seen.insert({t.name, rp.partition_index}).second) {
                fail(error_code::invalid_request, "The partition is named twice.");
                continue;
            }
            const partition_registration& p = topic->partitions[size_t(rp.partition_index)];
            if (!rp.replicas) {
                if (!reassigning(p)) {
                    fail(error_code::no_reassignment_in_progress,
                         "No partition reassignment is in progress.");
                    continue;
                }
                plan.records.emplace_back(
                    settle(image, *topic, p, minus(p.replicas, p.adding_replicas), p.isr));
                continue;
            }
            const std::vector<node_id>& target = *rp.replicas;
            if (auto why = invalid_target(image, target); !why.empty()) {
                fail(error_code::invalid_replica_assignment, std::move(why));
                continue;
            }
            if (target == p.replicas && !reassigning(p)) {
                continue;  // already there
            }
            const bool in_sync = std::all_of(target.begin(), target.end(),
                                             [&](node_id r) { return contains(p.isr, r); });
            if (in_sync) {
                // No replica to wait for (a reordering, or a smaller set).
                plan.records.emplace_back(settle(image, *topic, p, target, p.isr));
                continue;
            }
            protocol::partition_change_record c;
            c.topic_id = topic->id;
            c.partition_id = p.partition;
            std::vector<node_id> merged = target;
            for (node_id r : minus(p.replicas, target)) {
                merged.push_back(r);
            }
            c.replicas = merged;
            c.adding_replicas = minus(target, p.replicas);
            c.removing_replicas = minus(p.replicas, target);
            plan.records.emplace_back(std::move(c));
        }
    }
    return plan;
}

protocol::list_partition_reassignments_response list_partition_reassignments(
    const metadata_image& image, const protocol::list_partition_reassignments_request& request) {
    protocol::list_partition_reassignments_response out;
    out.error_message = std::nullopt;
    auto add = [&](const topic_image& topic, const std::vector<int32_t>* only) {
        protocol::list_partition_reassignments_response::ongoing_topic_reassignment ot;
        ot.name = topic.name;
        for (const auto& p : topic.partitions) {
            if (!reassigning(p) ||
                (only && std::find(only->begin(), only->end(), p.partition) == only->end())) {
                continue;
            }
            auto& op = ot.partitions.emplace_back();
            op.partition_index = p.partition;
            op.replicas = p.replicas;
            op.adding_replicas = p.adding_replicas;
            op.removing_replicas = p.removing_replicas;
        }
        if (!ot.partitions.empty()) {
            out.topics.push_back(std::move(ot));
        }
    };
    if (!request.topics) {
        for (const auto& [name, topic] : image.topics_by_name) {
            add(*topic, nullptr);
        }
        return out;
    }
    for (const auto& t : *request.topics) {
        if (const topic_image* topic = image.topic(t.name)) {
            add(*topic, &t.partition_indexes);
        }
    }
    return out;
}

}  // namespace samsa::metadata
