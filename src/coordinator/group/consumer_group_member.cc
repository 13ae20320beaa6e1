#include "coordinator/group/consumer_group_member.h"

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
