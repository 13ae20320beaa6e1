// `samsa configs`: kafka-configs.sh for topics and brokers — describe the
// dynamic (or all) configs, add and delete overrides — for client quotas of
// users and client ids (tools/client_quotas.h), and for users' SCRAM
// credentials (tools/scram_users.h), for a broker's log levels
// (tools/broker_loggers.h), and for groups' configs (tools/group_configs.h).
//
// librdkafka 2.0.2 has no IncrementalAlterConfigs, so an alteration reads the
// entity's current dynamic configs, applies the change, and writes the whole set
// back with AlterConfigs (which replaces it) — what kafka-configs.sh itself did
// before KIP-339. Two concurrent alterations of one entity can lose one change.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common/client_quotas.h"
#include "tools/broker_loggers.h"
#include "tools/client_quotas.h"
#include "tools/commands.h"
#include "tools/group_configs.h"
#include "tools/incremental_alter_configs.h"
#include "tools/kafka_client.h"
#include "tools/scram_users.h"

namespace samsa::tools {

namespace {

struct configs_options {
    client_options client;
    std::string entity_type;
    std::optional<std::string> entity_name;
    bool entity_default = false;
    bool describe = false, alter = false, all = false;
    std::vector<std::string> add_config;
    std::vector<std::string> delete_config;
};

struct config_entry {
    std::string name;
    std::optional<std::string> value;  // nullopt: sensitive or unset
    bool sensitive = false;
    rd_kafka_ConfigSource_t source = RD_KAFKA_CONFIG_SOURCE_UNKNOWN_CONFIG;
    std::string synonyms;  // "SOURCE:name=value, ..."
};

struct entity {
    rd_kafka_ResourceType_t type;
    std::string name;  // "" for the cluster-wide broker default
    // The broker asked for the default's configs: librdkafka 2.0.2 crashes on a
    // broker resource named "", so the default is read through a real broker
    // (whose answer carries the DYNAMIC_DEFAULT_BROKER_CONFIG entries).
    std::string via_broker;
    std::string label() const {
        if (type == RD_KAFKA_RESOURCE_TOPIC) {
            return "topic " + name;
        }
        return name.empty() ? "brokers in the cluster" : "broker " + name;
    }
    // The source of the configs an alteration of this entity sets.
    rd_kafka_ConfigSource_t dynamic_source() const {
        if (type == RD_KAFKA_RESOURCE_TOPIC) {
            return RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG;
        }
        return name.empty() ? RD_KAFKA_CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG
                            : RD_KAFKA_CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG;
    }
};

// Kafka's --add-config syntax: "k1=v1,k2=[a,b],k3=v3" (brackets keep commas in a value).
result<property_list> parse_config_list(const std::vector<std::string>& args) {
    property_list out;
    for (const auto& arg : args) {
        std::vector<std::string> items;
        std::string cur;
        int depth = 0;
        for (char c : arg) {
            if (c == '[') {
                ++depth;
            } else if (c == ']') {
                --depth;
            }
            if (c == ',' && depth == 0) {
                items.push_back(cur);
                cur.clear();
            } else {
                cur += c;
            }
        }
        if (!cur.empty()) {
            items.push_back(cur);
        }
        for (const auto& item : items) {
            auto kv = parse_key_value(item);
            if (!kv) {
                return tool_error("Invalid config: " + kv.err().message);
            }
            std::string& v = kv->second;
            if (v.size() >= 2 && v.front() == '[' && v.back() == ']') {
                v = v.substr(1, v.size() - 2);
            }
            out.push_back(std::move(*kv));
        }
    }
    return out;
}

std::vector<std::string> split_names(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (const auto& a : args) {
        size_t start = 0;
        while (start <= a.size()) {
            size_t comma = a.find(',', start);
            std::string n =
                a.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (!n.empty()) {
                out.push_back(n);
            }
            if (comma == std::string::npos) {
                break;
            }
            start = comma + 1;
        }
    }
    return out;
}

// --add-config and --delete-config of an --alter, at least one of them.
result<std::pair<property_list, std::vector<std::string>>> alteration_of(const configs_options& o) {
    auto adds = parse_config_list(o.add_config);
    if (!adds) {
        return adds.err();
    }
    auto deletes = split_names(o.delete_config);
    if (adds->empty() && deletes.empty()) {
        return tool_error("--alter needs --add-config or --delete-config");
    }
    return std::pair{std::move(*adds), std::move(deletes)};
}

result<std::vector<config_entry>> describe_entity(kafka_client& client, const entity& e) {
    const std::string& name = e.name.empty() ? e.via_broker : e.name;
    rd_kafka_ConfigResource_t* res = rd_kafka_ConfigResource_new(e.type, name.c_str());
    auto ev = client.admin_call(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS,
                                "describing the configs of " + e.label() + " failed",
                                [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                    rd_kafka_DescribeConfigs(client.handle(), &res, 1, opts, q);
                                });
    rd_kafka_ConfigResource_destroy(res);
    if (!ev) {
        return ev.err();
    }
    size_t n = 0;
    const rd_kafka_ConfigResource_t** described = rd_kafka_DescribeConfigs_result_resources(
        rd_kafka_event_DescribeConfigs_result(ev->get()), &n);
    if (n != 1) {
        return tool_error("no configs returned for " + e.label());
    }
    if (auto err = rd_kafka_ConfigResource_error(described[0])) {
        const char* msg = rd_kafka_ConfigResource_error_string(described[0]);
        return tool_error("describing the configs of " + e.label() +
                          " failed: " + (msg && *msg ? msg : rd_kafka_err2str(err)));
    }
    std::vector<config_entry> out;
    size_t cnt = 0;
    const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(described[0], &cnt);
    for (size_t i = 0; i < cnt; ++i) {
        config_entry ce;
        ce.name = rd_kafka_ConfigEntry_name(entries[i]);
        if (const char* v = rd_kafka_ConfigEntry_value(entries[i])) {
            ce.value = v;
        }
        ce.sensitive = rd_kafka_ConfigEntry_is_sensitive(entries[i]);
        ce.source = rd_kafka_ConfigEntry_source(entries[i]);
        size_t ns = 0;
        const rd_kafka_ConfigEntry_t** syns = rd_kafka_ConfigEntry_synonyms(entries[i], &ns);
        for (size_t s = 0; s < ns; ++s) {
            const char* sv = rd_kafka_ConfigEntry_value(syns[s]);
            ce.synonyms += std::string(s ? ", " : "") +
                           rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(syns[s])) + ":" +
                           rd_kafka_ConfigEntry_name(syns[s]) + "=" +
                           (sv && !ce.sensitive ? sv : "null");
        }
        out.push_back(std::move(ce));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

int describe(kafka_client& client, const configs_options& o, const std::vector<entity>& entities) {
    for (const auto& e : entities) {
        auto entries = describe_entity(client, e);
        if (!entries) {
            return fail(entries.err());
        }
        std::string out;
        if (e.type == RD_KAFKA_RESOURCE_BROKER && e.name.empty() && !o.all) {
            out = "Default configs for brokers in the cluster are:\n";
        } else {
            out = std::string(o.all ? "All" : "Dynamic") + " configs for " + e.label() + " are:\n";
        }
        for (const auto& ce : *entries) {
            if (!o.all && ce.source != e.dynamic_source()) {
                continue;
            }
            std::string value = ce.value && !ce.sensitive ? *ce.value : "null";
            out += "  " + ce.name + "=" + value +
                   " sensitive=" + (ce.sensitive ? "true" : "false") + " synonyms={" + ce.synonyms +
                   "}\n";
        }
        std::fputs(out.c_str(), stdout);
    }
    return 0;
}

// The cluster-wide broker default (a broker resource named "", which the
// client library cannot address: see entity::via_broker), changed as Kafka's
// tool changes broker configs: IncrementalAlterConfigs, each --add-config
// SET and each --delete-config DELETEd.
int alter_broker_default(const configs_options& o, const property_list& adds,
                         const std::vector<std::string>& deletes) {
    auto to = bootstrap_target(o.client, "samsa-configs");
    if (!to) {
        return fail(to.err());
    }
    if (auto st =
            incremental_alter_config(*to, config_resource_broker, "", config_ops_of(adds, deletes));
        !st) {
        return fail(st.err());
    }
    std::printf("Completed updating default config for brokers in the cluster.\n");
    return 0;
}

int alter(kafka_client& client, const configs_options& o, const entity& e) {
    auto change = alteration_of(o);
    if (!change) {
        return fail(change.err());
    }
    const auto& [adds, deletes] = *change;
    if (e.type == RD_KAFKA_RESOURCE_BROKER && e.name.empty()) {
        return alter_broker_default(o, adds, deletes);
    }
    auto current = describe_entity(client, e);
    if (!current) {
        return fail(current.err());
    }
    std::map<std::string, std::optional<std::string>> dynamic;
    for (const auto& ce : *current) {
        if (ce.source == e.dynamic_source()) {
            dynamic[ce.name] = ce.sensitive ? std::nullopt : ce.value;
        }
    }
    std::vector<std::string> missing;
    for (const auto& d : deletes) {
        if (e.type == RD_KAFKA_RESOURCE_TOPIC && !dynamic.count(d)) {
            missing.push_back(d);
        }
        dynamic.erase(d);
    }
    if (!missing.empty()) {
        std::string names;
        for (const auto& m : missing) {
            names += (names.empty() ? "" : ",") + m;
        }
        return fail("Invalid config(s): " + names);
    }
    for (const auto& [k, v] : adds) {
        dynamic[k] = v;
    }
    for (const auto& [k, v] : dynamic) {
        if (!v) {
            return fail("the sensitive config " + k + " of " + e.label() +
                        " cannot be read back to be kept; give it again with --add-config");
        }
    }
    rd_kafka_ConfigResource_t* res = rd_kafka_ConfigResource_new(e.type, e.name.c_str());
    for (const auto& [k, v] : dynamic) {
        rd_kafka_ConfigResource_set_config(res, k.c_str(), v->c_str());
    }
    auto ev = client.admin_call(RD_KAFKA_ADMIN_OP_ALTERCONFIGS,
                                "updating the config of " + e.label() + " failed",
                                [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                    rd_kafka_AlterConfigs(client.handle(), &res, 1, opts, q);
                                });
    rd_kafka_ConfigResource_destroy(res);
    if (!ev) {
        return fail(ev.err());
    }
    size_t n = 0;
    const rd_kafka_ConfigResource_t** altered =
        rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(ev->get()), &n);
    for (size_t i = 0; i < n; ++i) {
        if (auto err = rd_kafka_ConfigResource_error(altered[i])) {
            const char* msg = rd_kafka_ConfigResource_error_string(altered[i]);
            return fail(std::string(msg && *msg ? msg : rd_kafka_err2str(err)));
        }
    }
    std::printf("Completed updating config for %s.\n", e.label().c_str());
    return 0;
}

// Users and clients: client quotas (tools/client_quotas.h), and users' SCRAM
// credentials (tools/scram_users.h). `singular` names the entity in the
// closing line, as kafka-configs.sh does.
int run_quota_entity_configs(const configs_options& o, const std::string& quota_type,
                             const std::string& singular) {
    const bool users = quota_type == quota::entity_user;
    if (o.entity_default && o.entity_name) {
        return fail("--entity-name and --entity-default cannot be given together");
    }
    quota_component c{quota_type, o.entity_name, !o.entity_name && !o.entity_default};
    if (o.describe) {
        if (int rc = describe_client_quotas(o.client, {c}); rc != 0) {
            return rc;
        }
        return users && !o.entity_default ? describe_scram_users(o.client, o.entity_name) : 0;
    }
    if (c.any || (c.name && c.name->empty())) {
        return fail("--alter needs --entity-name or --entity-default for " + singular + "s");
    }
    auto change = alteration_of(o);
    if (!change) {
        return fail(change.err());
    }
    const auto& [adds, deletes] = *change;
    property_list quota_adds, scram_adds;
    std::vector<std::string> quota_deletes, scram_deletes;
    for (const auto& kv : adds) {
        (is_client_quota_key(kv.first) ? quota_adds : scram_adds).push_back(kv);
    }
    for (const auto& d : deletes) {
        (is_client_quota_key(d) ? quota_deletes : scram_deletes).push_back(d);
    }
    if (!scram_adds.empty() || !scram_deletes.empty()) {
        if (!users || o.entity_default) {
            std::string names;
            for (const auto& kv : scram_adds) {
                names += (names.empty() ? "" : ",") + kv.first;
            }
            for (const auto& d : scram_deletes) {
                names += (names.empty() ? "" : ",") + d;
            }
            return fail("Invalid config(s): " + names);
        }
    }
    if (!quota_adds.empty() || !quota_deletes.empty()) {
        if (int rc = alter_client_quotas(o.client, {c}, quota_adds, quota_deletes); rc != 0) {
            return rc;
        }
    }
    if (!scram_adds.empty() || !scram_deletes.empty()) {
        // It prints its own closing line.
        return alter_scram_users(o.client, *c.name, scram_adds, scram_deletes);
    }
    if (c.name) {
        std::printf("Completed updating config for %s %s.\n", singular.c_str(), c.name->c_str());
    } else {
        std::printf("Completed updating default config for %ss in the cluster.\n",
                    singular.c_str());
    }
    return 0;
}

// A broker's log levels (tools/broker_loggers.h): always one broker, named.
int run_broker_logger_configs(const configs_options& o) {
    if (o.entity_default || !o.entity_name || o.entity_name->empty() ||
        o.entity_name->find_first_not_of("0123456789") != std::string::npos) {
        return fail("--entity-type broker-loggers needs --entity-name <broker id>");
    }
    if (o.describe) {
        return describe_broker_loggers(o.client, *o.entity_name);
    }
    auto change = alteration_of(o);
    if (!change) {
        return fail(change.err());
    }
    return alter_broker_loggers(o.client, *o.entity_name, change->first, change->second);
}

// A group's configs (tools/group_configs.h): named, or every group listed.
int run_group_configs(const configs_options& o) {
    if (o.entity_default) {
        return fail("--entity-default is only for --entity-type brokers, users, clients and ips");
    }
    if (o.entity_name && o.entity_name->empty()) {
        return fail("the entity name for groups must not be empty");
    }
    if (o.describe) {
        return describe_group_configs(o.client, o.entity_name, o.all);
    }
    if (!o.entity_name) {
        return fail("--alter needs --entity-name for groups");
    }
    auto change = alteration_of(o);
    if (!change) {
        return fail(change.err());
    }
    return alter_group_configs(o.client, *o.entity_name, change->first, change->second);
}

int run_configs(const configs_options& o) {
    if (o.describe == o.alter) {
        return fail("Command must include exactly one action: --describe, --alter");
    }
    if (o.entity_type == "users" || o.entity_type == "user") {
        return run_quota_entity_configs(o, std::string(quota::entity_user), "user");
    }
    if (o.entity_type == "clients" || o.entity_type == "client") {
        return run_quota_entity_configs(o, std::string(quota::entity_client_id), "client");
    }
    if (o.entity_type == "ips" || o.entity_type == "ip") {
        return run_quota_entity_configs(o, std::string(quota::entity_ip), "ip");
    }
    if (o.entity_type == "broker-loggers" || o.entity_type == "broker-logger") {
        return run_broker_logger_configs(o);
    }
    if (o.entity_type == "groups" || o.entity_type == "group") {
        return run_group_configs(o);
    }
    rd_kafka_ResourceType_t type;
    if (o.entity_type == "topics" || o.entity_type == "topic") {
        type = RD_KAFKA_RESOURCE_TOPIC;
    } else if (o.entity_type == "brokers" || o.entity_type == "broker") {
        type = RD_KAFKA_RESOURCE_BROKER;
    } else {
        return fail(
            "--entity-type must be topics, brokers, broker-loggers, users, clients, ips or "
            "groups, got '" +
            o.entity_type + "'");
    }
    if (o.entity_default && type != RD_KAFKA_RESOURCE_BROKER) {
        return fail("--entity-default is only for --entity-type brokers, users, clients and ips");
    }
    if (o.entity_default && o.entity_name) {
        return fail("--entity-name and --entity-default cannot be given together");
    }
    if (o.alter && !o.entity_name && !o.entity_default) {
        return fail("--alter needs --entity-name (or --entity-default for brokers)");
    }
    if (type == RD_KAFKA_RESOURCE_BROKER && o.entity_name) {
        auto& n = *o.entity_name;
        if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) {
            return fail("The entity name for brokers must be a broker id, got '" + n + "'");
        }
    }
    auto client =
        kafka_client::create(client_kind::producer, o.client, {{"client.id", "samsa-configs"}});
    if (!client) {
        return fail(client.err());
    }
    std::vector<entity> entities;
    if (o.entity_default) {
        entities.push_back({type, "", ""});
    } else if (o.entity_name) {
        entities.push_back({type, *o.entity_name, ""});
    }
    // Topics are checked first so that a typo is "does not exist", not a config error.
    if (type == RD_KAFKA_RESOURCE_TOPIC || entities.empty() || o.entity_default) {
        auto md = client->metadata();
        if (!md) {
            return fail(md.err());
        }
        if (entities.empty()) {
            if (type == RD_KAFKA_RESOURCE_TOPIC) {
                for (const auto& t : md->topics) {
                    entities.push_back({type, t.name, ""});
                }
            } else {
                for (const auto& b : md->brokers) {
                    entities.push_back({type, std::to_string(b.id), ""});
                }
            }
        } else if (o.entity_default) {
            if (md->brokers.empty()) {
                return fail("the cluster reported no brokers");
            }
            entities.front().via_broker = std::to_string(md->brokers.front().id);
        } else if (type == RD_KAFKA_RESOURCE_TOPIC) {
            const topic_info* t = md->find(entities.front().name);
            if (t == nullptr || t->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
                return fail("Topic '" + entities.front().name + "' does not exist");
            }
        }
    }
    if (o.describe) {
        return describe(*client, o, entities);
    }
    return alter(*client, o, entities.front());
}

}  // namespace

tool_command add_configs_command(CLI::App& app) {
    auto o = std::make_shared<configs_options>();
    auto* cmd = add_verb(app, "configs", "Describe or change topic, broker and group configs");
    add_client_options(*cmd, o->client);
    cmd->add_option("--entity-type", o->entity_type,
                    "topics, brokers, broker-loggers, users, clients, ips or groups")
        ->required();
    cmd->add_option("--entity-name", o->entity_name,
                    "Topic name, broker id, user, client id or group id (default with "
                    "--describe: all)");
    cmd->add_flag("--entity-default", o->entity_default,
                  "The cluster-wide default of broker configs, or the default user or client's "
                  "quotas");
    cmd->add_flag("--describe", o->describe, "List the dynamic config overrides");
    cmd->add_flag("--all", o->all, "With --describe: list every config, not only overrides");
    cmd->add_flag("--alter", o->alter, "Add or delete config overrides");
    cmd->add_option("--add-config", o->add_config,
                    "Overrides to set: k1=v1,k2=[v1,v2],... (repeatable)");
    cmd->add_option("--delete-config", o->delete_config,
                    "Overrides to remove: k1,k2,... (repeatable)");
    return {cmd, [o] { return run_configs(*o); }};
}

}  // namespace samsa::tools
