#include "metadata/partition_creation.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "metadata/replica_assignment.h"

namespace samsa::metadata {

namespace {

using request_topic = protocol::create_partitions_request::create_partitions_topic;

struct placement {
    std::vector<node_id> replicas;
    std::vector<node_id> isr;
};

result<std::vector<placement>> plan_topic(const controller_state& s, const request_topic& t,
                                          const topic_image& topic) {
    const int32_t current = int32_t(topic.partitions.size());
    if (t.count == current) {
        return error(error_code::invalid_partitions,
                     fmt::format("Topic already has {} partition(s).", current));
    }
    if (t.count < current) {
        return error(error_code::invalid_partitions,
                     fmt::format("The topic {} currently has {} partition(s); {} would not be an "
                                 "increase.",
                                 t.name, current, t.count));
    }
    const int32_t additional = t.count - current;
    if (additional > max_partitions_per_request) {
        return error(error_code::policy_violation,
                     "Excessively large number of partitions per request.");
    }
    if (t.assignments && int64_t(t.assignments->size()) != additional) {
        return error(error_code::invalid_replica_assignment,
                     fmt::format("Attempted to add {} additional partition(s), but only {} "
                                 "assignment(s) were specified.",
                                 additional, t.assignments->size()));
    }
    if (topic.partitions.empty()) {
        return error(error_code::unknown_server_error,
                     fmt::format("Invalid state: topic {} appears to have no partitions.", t.name));
    }
    const size_t rf = topic.partitions.front().replicas.size();
    std::vector<placement> out;
    if (t.assignments) {
        for (size_t i = 0; i < t.assignments->size(); ++i) {
            const auto& ids = (*t.assignments)[i].broker_ids;
            if (auto v = validate_manual_assignment(s.image, ids, rf); !v) {
                return v.err();
            }
            auto isr = initial_isr(s.image, ids);
            if (isr.empty()) {
                return error(error_code::invalid_replica_assignment,
                             fmt::format("All brokers specified in the manual partition "
                                         "assignment for partition {} are fenced or in "
                                         "controlled shutdown.",
                                         current + int32_t(i)));
            }
            out.push_back({ids, std::move(isr)});
        }
        return out;
    }
    auto assigned =
        assign_added_partitions(usable_broker_racks(s.image), topic.partitions.front().replicas,
                                current, additional, int16_t(rf), s.rng);
    if (!assigned) {
        return error(error_code::invalid_replication_factor,
                     fmt::format("Unable to replicate the partition {} time(s): {}", rf,
                                 assigned.err().message));
    }
    for (auto& replicas : *assigned) {
        auto isr = initial_isr(s.image, replicas);
        out.push_back({std::move(replicas), std::move(isr)});
    }
    return out;
}

}  // namespace

controller_plan<protocol::create_partitions_response> plan_create_partitions(
    const controller_state& s, const protocol::create_partitions_request& request) {
    controller_plan<protocol::create_partitions_response> plan;
    std::map<std::string, int> name_count;
    for (const auto& t : request.topics) {
        ++name_count[t.name];
    }
    std::set<std::string> answered;
    for (const auto& t : request.topics) {
        if (!answered.insert(t.name).second) {
            continue;
        }
        auto& r = plan.response.results.emplace_back();
        r.name = t.name;
        auto fail = [&r](const error& e) {
            r.error_code = to_wire(e.code);
            r.error_message = e.message.empty() ? std::nullopt : std::optional(e.message);
        };
        if (name_count[t.name] > 1) {
            fail({error_code::invalid_request, "Duplicate topic name."});
            continue;
        }
        const topic_image* topic = s.image.topic(t.name);
        if (!topic) {
            fail({error_code::unknown_topic_or_partition});
            continue;
        }
        auto parts = plan_topic(s, t, *topic);
        if (!parts) {
            fail(parts.err());
            continue;
        }
        int32_t partition = int32_t(topic->partitions.size());
        for (const auto& p : *parts) {
            protocol::partition_record pr;
            pr.partition_id = partition++;
            pr.topic_id = topic->id;
            pr.replicas = p.replicas;
            pr.isr = p.isr;
            pr.leader = p.isr.front();
            pr.leader_recovery_state = 0;
            pr.leader_epoch = 0;
            pr.partition_epoch = 0;
            plan.records.emplace_back(std::move(pr));
        }
    }
    if (request.validate_only) {
        plan.records.clear();
    }
    return plan;
}

}  // namespace samsa::metadata
