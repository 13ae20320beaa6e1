// `samsa topics`: kafka-topics.sh — create, list, describe, alter (add
// partitions) and delete topics, with the same flags and output.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string_view>

#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/topic_id_lookup.h"

namespace samsa::tools {

namespace {

struct topics_options {
    client_options client;
    bool create = false, list = false, describe = false, alter = false, remove = false;
    std::optional<std::string> topic;
    std::optional<int> partitions;
    std::optional<int> replication_factor;
    std::vector<std::string> configs;
    bool if_not_exists = false;
    bool if_exists = false;
    bool under_replicated = false;
    bool unavailable = false;
    bool under_min_isr = false;
    bool at_min_isr = false;
    std::string replica_assignment;
    bool with_overrides = false;
    bool exclude_internal = false;
};

struct topic_configs {
    std::string overrides;  // "k=v,k=v": the entries that are not defaults
    bool has_overrides = false;
    int min_insync_replicas = 1;  // the effective min.insync.replicas
};

// The topics --topic selects, sorted. As in kafka-topics.sh the name is a regular
// expression (matched whole) except for --create.
result<std::vector<const topic_info*>> select_topics(const cluster_metadata& md,
                                                     const topics_options& o) {
    std::optional<std::regex> pattern;
    if (o.topic && !o.topic->empty()) {
        try {
            pattern.emplace(*o.topic);
        } catch (const std::regex_error&) {
            // Not a valid expression: it can still be a literal topic name.
            pattern.emplace(
                std::regex_replace(*o.topic, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"));
        }
    }
    std::vector<const topic_info*> out;
    for (const auto& t : md.topics) {
        if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
            continue;
        }
        if (o.exclude_internal && is_internal_topic(t.name)) {
            continue;
        }
        if (pattern && !std::regex_match(t.name, *pattern)) {
            continue;
        }
        out.push_back(&t);
    }
    if (out.empty() && o.topic && !o.topic->empty() && !o.if_exists) {
        return tool_error("Topic '" + *o.topic + "' does not exist as expected");
    }
    return out;
}

std::string join_ids(const std::vector<int32_t>& ids) {
    std::string s;
    for (size_t i = 0; i < ids.size(); ++i) {
        s += (i ? "," : "") + std::to_string(ids[i]);
    }
    return s;
}

result<std::vector<topic_configs>> describe_topic_configs(
    kafka_client& client, const std::vector<const topic_info*>& topics) {
    std::vector<topic_configs> out(topics.size());
    if (topics.empty()) {
        return out;
    }
    std::vector<rd_kafka_ConfigResource_t*> resources;
    for (const auto* t : topics) {
        resources.push_back(rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, t->name.c_str()));
    }
    auto ev = client.admin_call(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, "describe configs failed",
                                [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                    rd_kafka_DescribeConfigs(client.handle(), resources.data(),
                                                             resources.size(), opts, q);
                                });
    rd_kafka_ConfigResource_destroy_array(resources.data(), resources.size());
    if (!ev) {
        return ev.err();
    }
    size_t n = 0;
    const auto* res = rd_kafka_event_DescribeConfigs_result(ev->get());
    const rd_kafka_ConfigResource_t** described =
        rd_kafka_DescribeConfigs_result_resources(res, &n);
    for (size_t i = 0; i < n; ++i) {
        std::string name = rd_kafka_ConfigResource_name(described[i]);
        size_t idx = 0;
        while (idx < topics.size() && topics[idx]->name != name) {
            ++idx;
        }
        if (idx == topics.size() ||
            rd_kafka_ConfigResource_error(described[i]) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            continue;
        }
        size_t cnt = 0;
        const rd_kafka_ConfigEntry_t** entries =
            rd_kafka_ConfigResource_configs(described[i], &cnt);
        for (size_t e = 0; e < cnt; ++e) {
            if (std::string_view(rd_kafka_ConfigEntry_name(entries[e])) == "min.insync.replicas") {
                const char* v = rd_kafka_ConfigEntry_value(entries[e]);
                out[idx].min_insync_replicas = v ? std::atoi(v) : 1;
            }
            if (rd_kafka_ConfigEntry_is_default(entries[e])) {
                continue;
            }
            const char* value = rd_kafka_ConfigEntry_value(entries[e]);
            auto& tc = out[idx];
            if (tc.has_overrides) {
                tc.overrides += ",";
            }
            tc.overrides +=
                std::string(rd_kafka_ConfigEntry_name(entries[e])) + "=" + (value ? value : "null");
            tc.has_overrides = true;
        }
    }
    return out;
}

int run_describe(kafka_client& client, const topics_options& o) {
    auto md = client.metadata();
    if (!md) {
        return fail(md.err());
    }
    auto selected = select_topics(*md, o);
    if (!selected) {
        return fail(selected.err());
    }
    auto configs = describe_topic_configs(client, *selected);
    if (!configs) {
        return fail(configs.err());
    }
    // Kafka prints the topic lines only when no partition filter is asked for.
    bool partition_filter = o.under_replicated || o.unavailable || o.under_min_isr || o.at_min_isr;
    std::map<std::string, std::string> ids;
    if (!partition_filter) {
        std::vector<std::string> names;
        for (const auto* t : *selected) {
            names.push_back(t->name);
        }
        auto security = client_security_of(o.client);
        ids = lookup_topic_ids(client.bootstrap(), names, client.timeout(),
                               security ? *security : nullptr);
    }
    std::set<int32_t> live;
    for (const auto& b : md->brokers) {
        live.insert(b.id);
    }
    std::string out;
    for (size_t i = 0; i < selected->size(); ++i) {
        const topic_info& t = *(*selected)[i];
        const topic_configs& tc = (*configs)[i];
        if (o.with_overrides && !tc.has_overrides) {
            continue;
        }
        if (!partition_filter) {
            out += "Topic: " + t.name;
            if (auto id = ids.find(t.name); id != ids.end()) {
                out += "\tTopicId: " + id->second;
            }
            size_t rf = t.partitions.empty() ? 0 : t.partitions.front().replicas.size();
            out += "\tPartitionCount: " + std::to_string(t.partitions.size());
            out += "\tReplicationFactor: " + std::to_string(rf);
            out += "\tConfigs: " + tc.overrides + "\n";
        }
        if (o.with_overrides) {
            continue;  // --topics-with-overrides lists topics only
        }
        for (const auto& p : t.partitions) {
            bool has_leader = p.leader >= 0;
            bool under = p.isr.size() < p.replicas.size();
            bool unavailable = !has_leader || !live.count(p.leader);
            const int isr = int(p.isr.size());
            if (partition_filter &&
                !((o.under_replicated && under) || (o.unavailable && unavailable) ||
                  (o.under_min_isr && isr < tc.min_insync_replicas) ||
                  (o.at_min_isr && isr == tc.min_insync_replicas))) {
                continue;
            }
            out += "\tTopic: " + t.name + "\tPartition: " + std::to_string(p.id) +
                   "\tLeader: " + (has_leader ? std::to_string(p.leader) : "none") +
                   "\tReplicas: " + join_ids(p.replicas) + "\tIsr: " + join_ids(p.isr) + "\n";
        }
    }
    std::fputs(out.c_str(), stdout);
    return 0;
}

int run_list(kafka_client& client, const topics_options& o) {
    auto md = client.metadata();
    if (!md) {
        return fail(md.err());
    }
    auto selected = select_topics(*md, o);
    if (!selected) {
        return fail(selected.err());
    }
    for (const auto* t : *selected) {
        std::printf("%s\n", t->name.c_str());
    }
    return 0;
}

// --replica-assignment "1:2,2:3": partition i's replicas are the i-th list
// (Kafka's TopicCommand.parseReplicaAssignment and its checks).
result<std::vector<std::vector<int32_t>>> parse_replica_assignment(const std::string& text) {
    std::vector<std::vector<int32_t>> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? comma : comma - start);
        std::vector<int32_t> brokers;
        size_t s = 0;
        while (s <= part.size()) {
            size_t colon = part.find(':', s);
            std::string id = part.substr(s, colon == std::string::npos ? colon : colon - s);
            char* end = nullptr;
            long v = std::strtol(id.c_str(), &end, 10);
            if (id.empty() || *end != '\0' || v < 0 || v > INT32_MAX) {
                return tool_error("Invalid --replica-assignment '" + text + "': '" + id +
                                  "' is not a broker id");
            }
            if (std::find(brokers.begin(), brokers.end(), int32_t(v)) != brokers.end()) {
                return tool_error("Partition replica lists may not contain duplicate entries: " +
                                  part);
            }
            brokers.push_back(int32_t(v));
            if (colon == std::string::npos) {
                break;
            }
            s = colon + 1;
        }
        if (!out.empty() && brokers.size() != out.front().size()) {
            return tool_error("Partition " + std::to_string(out.size()) +
                              " has different replication factor: " + part);
        }
        out.push_back(std::move(brokers));
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    return out;
}

// The first per-topic error in a CreateTopics/DeleteTopics/CreatePartitions result.
std::optional<std::pair<rd_kafka_resp_err_t, std::string>> first_topic_error(
    const rd_kafka_topic_result_t** results, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[i]);
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            const char* msg = rd_kafka_topic_result_error_string(results[i]);
            return std::pair{err, std::string(msg && *msg ? msg : rd_kafka_err2str(err))};
        }
    }
    return std::nullopt;
}

int run_create(kafka_client& client, const topics_options& o) {
    if (!o.topic || o.topic->empty()) {
        return fail("--create needs --topic");
    }
    if (o.replication_factor && (*o.replication_factor < 1 || *o.replication_factor > 32767)) {
        return fail("The replication factor must be between 1 and 32767 inclusive");
    }
    if (o.partitions && *o.partitions < 1) {
        return fail("The partitions must be greater than 0");
    }
    auto configs = parse_key_values(o.configs);
    if (!configs) {
        return fail("Invalid topic config: " + configs.err().message);
    }
    std::vector<std::vector<int32_t>> assignment;
    if (!o.replica_assignment.empty()) {
        if (o.partitions) {
            return fail(
                "Option \"[replica-assignment]\" can't be used with option \"[partitions]\"");
        }
        if (o.replication_factor) {
            return fail(
                "Option \"[replica-assignment]\" can't be used with option "
                "\"[replication-factor]\"");
        }
        auto a = parse_replica_assignment(o.replica_assignment);
        if (!a) {
            return fail(a.err());
        }
        assignment = std::move(*a);
    }
    char errstr[512];
    // -1: the broker's defaults (num.partitions, default.replication.factor).
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(
        o.topic->c_str(), assignment.empty() ? o.partitions.value_or(-1) : int(assignment.size()),
        assignment.empty() ? o.replication_factor.value_or(-1) : -1, errstr, sizeof errstr);
    if (nt == nullptr) {
        return fail(errstr);
    }
    for (size_t p = 0; p < assignment.size(); ++p) {
        if (rd_kafka_NewTopic_set_replica_assignment(nt, int32_t(p), assignment[p].data(),
                                                     assignment[p].size(), errstr, sizeof errstr)) {
            rd_kafka_NewTopic_destroy(nt);
            return fail(errstr);
        }
    }
    for (const auto& [k, v] : *configs) {
        rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
    }
    auto ev = client.admin_call(RD_KAFKA_ADMIN_OP_CREATETOPICS, "create topic failed",
                                [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                    rd_kafka_CreateTopics(client.handle(), &nt, 1, opts, q);
                                });
    rd_kafka_NewTopic_destroy(nt);
    if (!ev) {
        return fail(ev.err());
    }
    size_t n = 0;
    const auto** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev->get()), &n);
    if (auto e = first_topic_error(results, n)) {
        if (e->first == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS && o.if_not_exists) {
            return 0;
        }
        return fail(e->second);
    }
    std::printf("Created topic %s.\n", o.topic->c_str());
    return 0;
}

int run_alter(kafka_client& client, const topics_options& o) {
    if (!o.topic || o.topic->empty()) {
        return fail("--alter needs --topic");
    }
    if (!o.partitions) {
        return fail("--alter needs --partitions (use `samsa configs` to change topic configs)");
    }
    auto md = client.metadata();
    if (!md) {
        return fail(md.err());
    }
    auto selected = select_topics(*md, o);
    if (!selected) {
        return fail(selected.err());
    }
    if (selected->empty()) {
        return 0;
    }
    std::vector<std::vector<int32_t>> assignment;
    if (!o.replica_assignment.empty()) {
        auto a = parse_replica_assignment(o.replica_assignment);
        if (!a) {
            return fail(a.err());
        }
        assignment = std::move(*a);
    }
    std::vector<rd_kafka_NewPartitions_t*> parts;
    char errstr[512];
    for (const auto* t : *selected) {
        auto* np = rd_kafka_NewPartitions_new(t->name.c_str(), size_t(*o.partitions), errstr,
                                              sizeof errstr);
        if (np == nullptr) {
            rd_kafka_NewPartitions_destroy_array(parts.data(), parts.size());
            return fail(errstr);
        }
        parts.push_back(np);
        // As kafka-topics.sh: the assignment lists every partition; the ones past
        // the current count are the new ones'.
        for (size_t p = t->partitions.size(); p < assignment.size(); ++p) {
            if (rd_kafka_NewPartitions_set_replica_assignment(
                    np, int32_t(p - t->partitions.size()), assignment[p].data(),
                    assignment[p].size(), errstr, sizeof errstr)) {
                rd_kafka_NewPartitions_destroy_array(parts.data(), parts.size());
                return fail(errstr);
            }
        }
    }
    auto ev = client.admin_call(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, "alter topic failed",
                                [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                    rd_kafka_CreatePartitions(client.handle(), parts.data(),
                                                              parts.size(), opts, q);
                                });
    rd_kafka_NewPartitions_destroy_array(parts.data(), parts.size());
    if (!ev) {
        return fail(ev.err());
    }
    size_t n = 0;
    const auto** results = rd_kafka_CreatePartitions_result_topics(
        rd_kafka_event_CreatePartitions_result(ev->get()), &n);
    if (auto e = first_topic_error(results, n)) {
        return fail(e->second);
    }
    return 0;
}

int run_delete(kafka_client& client, const topics_options& o) {
    if (!o.topic || o.topic->empty()) {
        return fail("--delete needs --topic");
    }
    auto md = client.metadata();
    if (!md) {
        return fail(md.err());
    }
    auto selected = select_topics(*md, o);
    if (!selected) {
        return fail(selected.err());
    }
    if (selected->empty()) {
        return 0;
    }
    std::vector<rd_kafka_DeleteTopic_t*> dels;
    for (const auto* t : *selected) {
        dels.push_back(rd_kafka_DeleteTopic_new(t->name.c_str()));
    }
    auto ev = client.admin_call(RD_KAFKA_ADMIN_OP_DELETETOPICS, "delete topic failed",
                                [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                    rd_kafka_DeleteTopics(client.handle(), dels.data(), dels.size(),
                                                          opts, q);
                                });
    rd_kafka_DeleteTopic_destroy_array(dels.data(), dels.size());
    if (!ev) {
        return fail(ev.err());
    }
    size_t n = 0;
    const auto** results =
        rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev->get()), &n);
    if (auto e = first_topic_error(results, n)) {
        return fail(e->second);
    }
    return 0;
}

int run_topics(const topics_options& o) {
    int actions = o.create + o.list + o.describe + o.alter + o.remove;
    if (actions != 1) {
        return fail(
            "Command must include exactly one action: --list, --describe, --create, --alter or "
            "--delete");
    }
    auto client =
        kafka_client::create(client_kind::producer, o.client, {{"client.id", "samsa-topics"}});
    if (!client) {
        return fail(client.err());
    }
    if (o.create) {
        return run_create(*client, o);
    }
    if (o.list) {
        return run_list(*client, o);
    }
    if (o.describe) {
        return run_describe(*client, o);
    }
    if (o.alter) {
        return run_alter(*client, o);
    }
    return run_delete(*client, o);
}

}  // namespace

tool_command add_topics_command(CLI::App& app) {
    auto o = std::make_shared<topics_options>();
    auto* cmd = add_verb(app, "topics", "Create, list, describe, alter or delete topics");
    add_client_options(*cmd, o->client);
    cmd->add_flag("--create", o->create, "Create a new topic");
    cmd->add_flag("--list", o->list, "List all topics");
    cmd->add_flag("--describe", o->describe, "Describe topics: partitions, leaders, replicas");
    cmd->add_flag("--alter", o->alter, "Increase the number of partitions of a topic");
    cmd->add_flag("--delete", o->remove, "Delete a topic");
    cmd->add_option("--topic", o->topic,
                    "Topic name; a regular expression for all actions but --create");
    cmd->add_option("--partitions", o->partitions,
                    "Number of partitions (--create: default num.partitions; --alter: new total)");
    cmd->add_option("--replication-factor", o->replication_factor,
                    "Replicas per partition (default: default.replication.factor)");
    cmd->add_option("--config", o->configs, "Topic config for --create, name=value (repeatable)");
    cmd->add_flag("--if-not-exists", o->if_not_exists,
                  "With --create: succeed if the topic already exists");
    cmd->add_flag("--if-exists", o->if_exists,
                  "With --alter, --describe or --delete: do nothing if no topic matches");
    cmd->add_flag("--under-replicated-partitions", o->under_replicated,
                  "With --describe: only partitions whose ISR is smaller than their replicas");
    cmd->add_flag("--unavailable-partitions", o->unavailable,
                  "With --describe: only partitions whose leader is not available");
    cmd->add_flag("--under-min-isr-partitions", o->under_min_isr,
                  "With --describe: only partitions whose ISR is smaller than the topic's "
                  "min.insync.replicas");
    cmd->add_flag("--at-min-isr-partitions", o->at_min_isr,
                  "With --describe: only partitions whose ISR is the topic's min.insync.replicas");
    cmd->add_option("--replica-assignment", o->replica_assignment,
                    "Replicas of each partition, partitions separated by commas and their "
                    "brokers by colons: 1:2,2:3,3:1 (--create, or --alter for the new "
                    "partitions)");
    cmd->add_flag("--topics-with-overrides", o->with_overrides,
                  "With --describe: only topics with config overrides");
    cmd->add_flag("--exclude-internal", o->exclude_internal,
                  "Leave out internal topics (__consumer_offsets, ...)");
    return {cmd, [o] { return run_topics(*o); }};
}

}  // namespace samsa::tools
