#include "metadata/topic_creation.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "common/config/topic_config.h"
#include "metadata/replica_assignment.h"
#include "metadata/topic_name.h"

namespace samsa::metadata {

namespace {

using creatable_topic = protocol::create_topics_request::creatable_topic;
using topic_result = protocol::create_topics_response::creatable_topic_result;

struct placement {
    std::vector<node_id> replicas;
    std::vector<node_id> isr;
};

protocol::partition_record partition_record_for(const uuid& topic_id, int32_t partition,
                                                const placement& p) {
    protocol::partition_record r;
    r.partition_id = partition;
    r.topic_id = topic_id;
    r.replicas = p.replicas;
    r.isr = p.isr;
    r.leader = p.isr.front();
    r.leader_recovery_state = 0;
    r.leader_epoch = 0;
    r.partition_epoch = 0;
    return r;
}

// The topic's config overrides, or INVALID_CONFIG.
result<std::map<std::string, std::string>> creation_configs(const creatable_topic& t) {
    std::map<std::string, std::string> out;
    std::string nulls;
    for (const auto& c : t.configs) {
        if (!c.value) {
            nulls += nulls.empty() ? c.name : "," + c.name;
            continue;
        }
        out[c.name] = *c.value;
    }
    if (!nulls.empty()) {
        return error(error_code::invalid_config,
                     "Null value not supported for topic configs: " + nulls);
    }
    if (auto s = config::validate_topic_overrides(out); !s) {
        return s.err();
    }
    return out;
}

result<std::vector<placement>> manual_placements(const controller_state& s,
                                                 const creatable_topic& t) {
    if (t.replication_factor != -1) {
        return error(error_code::invalid_request,
                     "A manual partition assignment was specified, but replication factor was "
                     "not set to -1.");
    }
    if (t.num_partitions != -1) {
        return error(error_code::invalid_request,
                     "A manual partition assignment was specified, but numPartitions was not set "
                     "to -1.");
    }
    std::map<int32_t, placement> parts;
    std::optional<size_t> rf;
    for (const auto& a : t.assignments) {
        if (parts.count(a.partition_index)) {
            return error(error_code::invalid_replica_assignment,
                         fmt::format("Found multiple manual partition assignments for partition {}",
                                     a.partition_index));
        }
        if (auto v = validate_manual_assignment(s.image, a.broker_ids, rf); !v) {
            return v.err();
        }
        rf = a.broker_ids.size();
        auto isr = initial_isr(s.image, a.broker_ids);
        if (isr.empty()) {
            return error(error_code::invalid_replica_assignment,
                         fmt::format("All brokers specified in the manual partition assignment for "
                                     "partition {} are fenced or in controlled shutdown.",
                                     a.partition_index));
        }
        parts[a.partition_index] = {a.broker_ids, std::move(isr)};
    }
    std::vector<placement> out;
    for (int32_t i = 0; size_t(i) < parts.size(); ++i) {
        auto it = parts.find(i);
        if (it == parts.end()) {
            return error(error_code::invalid_replica_assignment,
                         "partitions should be a consecutive 0-based integer sequence");
        }
        out.push_back(std::move(it->second));
    }
    return out;
}

result<std::vector<placement>> placements_for(const controller_state& s, const creatable_topic& t) {
    if (!t.assignments.empty()) {
        return manual_placements(s, t);
    }
    if (t.replication_factor < -1 || t.replication_factor == 0) {
        return error(error_code::invalid_replication_factor,
                     "Replication factor must be larger than 0, or -1 to use the default value.");
    }
    if (t.num_partitions < -1 || t.num_partitions == 0) {
        return error(error_code::invalid_partitions,
                     "Number of partitions was set to an invalid non-positive value.");
    }
    const int32_t partitions =
        t.num_partitions == -1 ? s.static_config.num_partitions : t.num_partitions;
    const int16_t rf = t.replication_factor == -1
                           ? int16_t(s.static_config.default_replication_factor)
                           : t.replication_factor;
    auto assigned =
        assign_replicas_to_brokers(usable_broker_racks(s.image), 0, partitions, rf, s.rng);
    if (!assigned) {
        return error(error_code::invalid_replication_factor,
                     fmt::format("Unable to replicate the partition {} time(s): {}", rf,
                                 assigned.err().message));
    }
    std::vector<placement> out;
    for (auto& replicas : *assigned) {
        auto isr = initial_isr(s.image, replicas);
        out.push_back({std::move(replicas), std::move(isr)});
    }
    return out;
}

int64_t requested_partitions(const controller_state& s, const creatable_topic& t) {
    if (!t.assignments.empty()) {
        return int64_t(t.assignments.size());
    }
    return t.num_partitions == -1 ? s.static_config.num_partitions : std::max(0, t.num_partitions);
}

topic_result error_result(const std::string& name, const error& e) {
    topic_result r;
    r.name = name;
    r.error_code = to_wire(e.code);
    r.error_message = e.message.empty() ? std::nullopt : std::optional(e.message);
    return r;
}

void add_effective_configs(const config::resolved_topic_config& resolved, topic_result& out) {
    out.configs.emplace();
    for (const auto& e : resolved.entries) {
        auto& c = out.configs->emplace_back();
        c.name = e.name;
        c.value = e.value;  // nullopt for sensitive keys
        c.read_only = e.read_only;
        c.config_source = int8_t(e.source);
        c.is_sensitive = e.sensitive;
    }
}

}  // namespace

controller_plan<protocol::create_topics_response> plan_create_topics(
    const controller_state& s, const protocol::create_topics_request& request) {
    controller_plan<protocol::create_topics_response> plan;
    auto& topics = plan.response.topics;

    std::map<std::string, int> name_count;
    int64_t total_partitions = 0;
    for (const auto& t : request.topics) {
        ++name_count[t.name];
        total_partitions += requested_partitions(s, t);
    }
    if (total_partitions > max_partitions_per_request) {
        for (const auto& [name, n] : name_count) {
            topics.push_back(error_result(name, {error_code::policy_violation,
                                                 "Excessively large number of partitions per "
                                                 "request."}));
        }
        return plan;
    }

    // Names that collide once '.' is read as '_': the image's topics, and the
    // ones this request creates (Kafka checks only the former; two colliding
    // topics in one request would otherwise both be created).
    std::set<std::string> unified;
    for (const auto& [name, t] : s.image.topics_by_name) {
        unified.insert(unify_collision_chars(name));
    }
    std::set<std::string> answered;
    for (const auto& t : request.topics) {
        if (!answered.insert(t.name).second) {
            continue;
        }
        if (name_count[t.name] > 1) {
            topics.push_back(
                error_result(t.name, {error_code::invalid_request, "Duplicate topic name."}));
            continue;
        }
        if (t.name == cluster_metadata_topic) {
            topics.push_back(error_result(
                t.name, {error_code::invalid_request,
                         "Creation of internal topic __cluster_metadata is prohibited."}));
            continue;
        }
        if (auto v = validate_topic_name(t.name); !v) {
            topics.push_back(error_result(t.name, v.err()));
            continue;
        }
        if (s.image.topic(t.name)) {
            topics.push_back(
                error_result(t.name, {error_code::topic_already_exists,
                                      fmt::format("Topic '{}' already exists.", t.name)}));
            continue;
        }
        if (t.name.find_first_of("._") != std::string::npos &&
            unified.count(unify_collision_chars(t.name))) {
            std::string other;
            for (const auto& [name, ti] : s.image.topics_by_name) {
                if (unify_collision_chars(name) == unify_collision_chars(t.name)) {
                    other = name;
                }
            }
            if (other.empty()) {
                for (const auto& r : topics) {
                    if (r.error_code == 0 &&
                        unify_collision_chars(r.name) == unify_collision_chars(t.name)) {
                        other = r.name;
                    }
                }
            }
            topics.push_back(error_result(
                t.name,
                {error_code::invalid_topic_exception,
                 fmt::format("Topic '{}' collides with existing topic: {}", t.name, other)}));
            continue;
        }
        auto configs = creation_configs(t);
        if (!configs) {
            topics.push_back(error_result(t.name, configs.err()));
            continue;
        }
        auto resolved = config::resolve_topic_config(*configs, s.broker);
        if (!resolved) {
            topics.push_back(error_result(t.name, resolved.err()));
            continue;
        }
        auto parts = placements_for(s, t);
        if (!parts) {
            topics.push_back(error_result(t.name, parts.err()));
            continue;
        }

        const uuid id = uuid::random();
        topic_result ok;
        ok.name = t.name;
        ok.topic_id = id;
        ok.error_message = std::nullopt;
        ok.num_partitions = int32_t(parts->size());
        ok.replication_factor = int16_t(parts->front().replicas.size());
        add_effective_configs(*resolved, ok);
        topics.push_back(std::move(ok));
        unified.insert(unify_collision_chars(t.name));

        // Kafka's order: the topic, its configs, then its partitions.
        protocol::topic_record tr;
        tr.name = t.name;
        tr.topic_id = id;
        plan.records.emplace_back(std::move(tr));
        for (const auto& [key, value] : *configs) {
            protocol::config_record cr;
            cr.resource_type = int8_t(config_resource_type::topic);
            cr.resource_name = t.name;
            cr.name = key;
            cr.value = value;
            plan.records.emplace_back(std::move(cr));
        }
        for (size_t p = 0; p < parts->size(); ++p) {
            plan.records.emplace_back(partition_record_for(id, int32_t(p), (*parts)[p]));
        }
    }
    if (request.validate_only) {
        plan.records.clear();
    }
    return plan;
}

protocol::create_topics_request::creatable_topic auto_created_topic(
    const std::string& name, const config::broker_config& cfg) {
    creatable_topic t;
    t.name = name;
    t.num_partitions = -1;
    t.replication_factor = -1;
    auto set = [&t](const char* key, std::string value) {
        auto& c = t.configs.emplace_back();
        c.name = key;
        c.value = std::move(value);
    };
    if (name == "__consumer_offsets") {
        t.num_partitions = cfg.offsets_topic_num_partitions;
        t.replication_factor = cfg.offsets_topic_replication_factor;
        set("cleanup.policy", "compact");
        set("compression.type", "producer");
        set("segment.bytes", std::to_string(cfg.offsets_topic_segment_bytes));
    } else if (name == "__transaction_state") {
        t.num_partitions = cfg.transaction_state_log_num_partitions;
        t.replication_factor = cfg.transaction_state_log_replication_factor;
        set("cleanup.policy", "compact");
        set("compression.type", "uncompressed");
        set("min.insync.replicas", std::to_string(cfg.transaction_state_log_min_isr));
        set("segment.bytes", std::to_string(cfg.transaction_state_log_segment_bytes));
        set("unclean.leader.election.enable", "false");
    }
    return t;
}

}  // namespace samsa::metadata
