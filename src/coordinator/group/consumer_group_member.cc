#include "coordinator/group/consumer_group_member.h"

#include <algorithm>

namespace samsa::coordinator {

const char* member_state_name(member_state s) {
    switch (s) {
        case member_state::stable:
            return "STABLE";
        case member_state::unrevoked_partitions:
            return "UNREVOKED_PARTITIONS";
        case member_state::unreleased_partitions:
            return "UNRELEASED_PARTITIONS";
        case member_state::unknown:
            return "UNKNOWN";
    }
    return "UNKNOWN";
}

consumer_group_member consumer_group_member::clone() const {
    consumer_group_member out;
    out.member_id = member_id;
    out.instance_id = instance_id;
    out.rack_id = rack_id;
    out.client_id = client_id;
    out.client_host = client_host;
    out.subscribed_topic_names = subscribed_topic_names;
    out.subscribed_topic_regex = subscribed_topic_regex;
    out.server_assignor = server_assignor;
    out.rebalance_timeout_ms = rebalance_timeout_ms;
    out.classic = classic;
    out.member_epoch = member_epoch;
    out.previous_member_epoch = previous_member_epoch;
    out.state = state;
    out.assigned = assigned;
    out.pending_revocation = pending_revocation;
    out.assignment_epochs = assignment_epochs;
    out.heartbeat_due_ms = heartbeat_due_ms;
    return out;
}

std::optional<int32_t> consumer_group_member::assignment_epoch_of(const uuid& topic,
                                                                  int32_t partition) const {
    auto it = assignment_epochs.find({topic, partition});
    if (it == assignment_epochs.end()) {
        return std::nullopt;
    }
    return it->second;
}

void consumer_group_member::settle_assignment_epochs(const consumer_group_member* before) {
    std::map<std::pair<uuid, int32_t>, int32_t> settled;
    const int32_t fresh = std::max(member_epoch, 0);
    for (const topic_assignment* owned : {&assigned, &pending_revocation}) {
        for (const auto& [topic, parts] : *owned) {
            for (int32_t p : parts) {
                std::optional<int32_t> epoch = assignment_epoch_of(topic, p);
                if (!epoch && before) {
                    epoch = before->assignment_epoch_of(topic, p);
                }
                settled[{topic, p}] = epoch.value_or(fresh);
            }
        }
    }
    assignment_epochs = std::move(settled);
}

bool same_member_metadata(const consumer_group_member& a, const consumer_group_member& b) {
    return a.instance_id == b.instance_id && a.rack_id == b.rack_id && a.client_id == b.client_id &&
           a.client_host == b.client_host && a.subscribed_topic_names == b.subscribed_topic_names &&
           a.subscribed_topic_regex == b.subscribed_topic_regex &&
           a.server_assignor == b.server_assignor &&
           a.rebalance_timeout_ms == b.rebalance_timeout_ms && a.classic == b.classic;
}

topic_assignment assignment_minus(const topic_assignment& a, const topic_assignment& b) {
    topic_assignment out;
    for (const auto& [topic, parts] : a) {
        auto other = b.find(topic);
        for (int32_t p : parts) {
            if (other == b.end() || !other->second.count(p)) {
                out[topic].insert(p);
            }
        }
    }
    return out;
}

topic_assignment assignment_intersection(const topic_assignment& a, const topic_assignment& b) {
    topic_assignment out;
    for (const auto& [topic, parts] : a) {
        auto other = b.find(topic);
        if (other == b.end()) {
            continue;
        }
        for (int32_t p : parts) {
            if (other->second.count(p)) {
                out[topic].insert(p);
            }
        }
    }
    return out;
}

bool assignment_empty(const topic_assignment& a) {
    return assignment_size(a) == 0;
}

size_t assignment_size(const topic_assignment& a) {
    size_t n = 0;
    for (const auto& [topic, parts] : a) {
        n += parts.size();
    }
    return n;
}

}  // namespace samsa::coordinator
