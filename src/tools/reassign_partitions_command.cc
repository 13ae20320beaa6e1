// `samsa reassign-partitions`: kafka-reassign-partitions.sh — move partitions
// between brokers (KIP-455: AlterPartitionReassignments and
// ListPartitionReassignments, which the librdkafka this links has no API for,
// so they go out as raw requests). Kafka's flags, JSON files and output:
//
//   --generate --topics-to-move-json-file F --broker-list 1,2,3
//   --execute  --reassignment-json-file F [--throttle R]
//   --verify   --reassignment-json-file F [--preserve-throttles]
//   --cancel   --reassignment-json-file F
//   --list
//
// A reassignment file: {"version":1,"partitions":[{"topic":"t","partition":0,
// "replicas":[2,3],"log_dirs":["any","/data/b"]}]}; log_dirs is optional, and
// a path there moves that replica into that log dir of its broker
// (tools/replica_log_dir_moves.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/result.h"
#include "net/blocking_call.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"
#include "tools/commands.h"
#include "tools/json_file.h"
#include "tools/kafka_client.h"
#include "tools/reassign_throttles.h"
#include "tools/replica_log_dir_moves.h"

namespace samsa::tools {

namespace {

using json = nlohmann::json;
using partition_key = std::pair<std::string, int32_t>;  // sorted as Kafka prints them
using assignment = replica_assignment;

struct reassign_options {
    client_options client;
    std::string reassignment_json_file;
    std::string topics_to_move_json_file;
    std::vector<int32_t> broker_list;
    bool generate = false, execute = false, verify = false, cancel = false, list = false;
    bool preserve_throttles = false;
    int64_t throttle = -1;
    int64_t log_dir_throttle = -1;
};

std::string name_of(const partition_key& k) {
    return k.first + "-" + std::to_string(k.second);
}

std::string joined(const std::vector<int32_t>& ids) {
    std::string out;
    for (int32_t id : ids) {
        out += (out.empty() ? "" : ",") + std::to_string(id);
    }
    return out;
}

std::string joined_names(const std::vector<partition_key>& parts) {
    std::string out;
    for (const auto& p : parts) {
        out += (out.empty() ? "" : ",") + name_of(p);
    }
    return out;
}

result<json> read_json(const std::string& path) {
    auto j = read_json_file(path);
    if (!j) {
        return j.err();
    }
    if (j->is_discarded() || !j->is_object()) {
        return error(error_code::invalid_config, path + " is not a JSON object");
    }
    return j;
}

// {"version":1,"partitions":[{"topic","partition","replicas","log_dirs"}]}.
result<assignment> read_reassignment(const std::string& path) {
    auto j = read_json(path);
    if (!j) {
        return j.err();
    }
    const auto bad = [&](const std::string& why) {
        return error(error_code::invalid_config, path + ": " + why);
    };
    if (!j->contains("partitions") || !(*j)["partitions"].is_array()) {
        return bad("expected {\"version\":1,\"partitions\":[...]}");
    }
    assignment out;
    for (const auto& p : (*j)["partitions"]) {
        if (!p.is_object() || !p.contains("topic") || !p["topic"].is_string() ||
            !p.contains("partition") || !p["partition"].is_number_integer() ||
            !p.contains("replicas") || !p["replicas"].is_array()) {
            return bad("each partition needs \"topic\", \"partition\" and \"replicas\"");
        }
        std::vector<int32_t> replicas;
        for (const auto& r : p["replicas"]) {
            if (!r.is_number_integer()) {
                return bad("replicas are broker ids");
            }
            replicas.push_back(r.get<int32_t>());
        }
        partition_key key{p["topic"].get<std::string>(), p["partition"].get<int32_t>()};
        if (!out.emplace(key, std::move(replicas)).second) {
            return bad("partition " + name_of(key) + " appears more than once");
        }
    }
    if (out.empty()) {
        return bad("no partitions to reassign");
    }
    return out;
}

// Kafka's formatAsReassignmentJson: compact, sorted by topic and partition.
std::string reassignment_json(const assignment& a) {
    // Kafka's key order, not nlohmann's alphabetical one.
    using ordered = nlohmann::ordered_json;
    ordered parts = ordered::array();
    for (const auto& [key, replicas] : a) {
        parts.push_back({{"topic", key.first},
                         {"partition", key.second},
                         {"replicas", replicas},
                         {"log_dirs", std::vector<std::string>(replicas.size(), "any")}});
    }
    return ordered{{"version", 1}, {"partitions", parts}}.dump();
}

// The current replicas of every partition of `topics` (all when empty).
result<assignment> current_assignment(kafka_client& client,
                                      const std::vector<std::string>& topics) {
    auto md = client.metadata();
    if (!md) {
        return md.err();
    }
    assignment out;
    for (const auto& t : md->topics) {
        if (!topics.empty() && std::find(topics.begin(), topics.end(), t.name) == topics.end()) {
            continue;
        }
        for (const auto& p : t.partitions) {
            out[{t.name, p.id}] = p.replicas;
        }
    }
    for (const auto& name : topics) {
        if (!md->find(name)) {
            return error(error_code::unknown_topic_or_partition, "Topic " + name + " not found");
        }
    }
    return out;
}

// AlterPartitionReassignments: each partition to its target, or cancelled
// (nullopt). The partitions that failed, with their messages.
result<std::map<partition_key, std::pair<int16_t, std::string>>> alter(
    const client_options& opts,
    const std::map<partition_key, std::optional<std::vector<int32_t>>>& changes) {
    auto to = bootstrap_target(opts, "samsa-reassign-partitions");
    if (!to) {
        return to.err();
    }
    protocol::alter_partition_reassignments_request req;
    req.timeout_ms = int32_t(opts.timeout.count());
    for (const auto& [key, replicas] : changes) {
        if (req.topics.empty() || req.topics.back().name != key.first) {
            req.topics.emplace_back().name = key.first;
        }
        auto& p = req.topics.back().partitions.emplace_back();
        p.partition_index = key.second;
        if (replicas) {
            p.replicas = to_node_ids(*replicas);
        } else {
            p.replicas = std::nullopt;  // cancel
        }
    }
    auto resp = net::call_blocking<protocol::alter_partition_reassignments_response>(*to, req, 0);
    if (!resp) {
        return resp.err();
    }
    if (resp->error_code != 0) {
        return error(error_code(resp->error_code),
                     message_of(resp->error_code, resp->error_message));
    }
    std::map<partition_key, std::pair<int16_t, std::string>> failed;
    for (const auto& t : resp->responses) {
        for (const auto& p : t.partitions) {
            if (p.error_code != 0) {
                failed[{t.name, p.partition_index}] = {p.error_code,
                                                       message_of(p.error_code, p.error_message)};
            }
        }
    }
    return failed;
}

// ListPartitionReassignments: the partitions being moved, with their
// replicas, adding and removing.
struct ongoing {
    std::vector<int32_t> replicas, adding, removing;
};

result<std::map<partition_key, ongoing>> list_ongoing(const client_options& opts) {
    auto to = bootstrap_target(opts, "samsa-reassign-partitions");
    if (!to) {
        return to.err();
    }
    protocol::list_partition_reassignments_request req;
    req.timeout_ms = int32_t(opts.timeout.count());
    auto resp = net::call_blocking<protocol::list_partition_reassignments_response>(*to, req, 0);
    if (!resp) {
        return resp.err();
    }
    if (resp->error_code != 0) {
        return error(error_code(resp->error_code),
                     message_of(resp->error_code, resp->error_message));
    }
    std::map<partition_key, ongoing> out;
    for (const auto& t : resp->topics) {
        for (const auto& p : t.partitions) {
            out[{t.name, p.partition_index}] = {node_numbers(p.replicas),
                                                node_numbers(p.adding_replicas),
                                                node_numbers(p.removing_replicas)};
        }
    }
    return out;
}

int print_failures(const char* what,
                   const std::map<partition_key, std::pair<int16_t, std::string>>& failed) {
    std::fprintf(stderr, "Error %s partition(s):\n", what);
    for (const auto& [key, err] : failed) {
        std::fprintf(stderr, "%s: %s\n", name_of(key).c_str(), err.second.c_str());
    }
    return 1;
}

int execute(const reassign_options& o, kafka_client& client) {
    auto wanted = read_reassignment(o.reassignment_json_file);
    if (!wanted) {
        return fail(wanted.err());
    }
    auto moves = read_log_dir_moves(o.reassignment_json_file);
    if (!moves) {
        return fail(moves.err());
    }
    auto current = current_assignment(client, {});
    if (!current) {
        return fail(current.err());
    }
    assignment before;
    std::map<partition_key, std::optional<std::vector<int32_t>>> changes;
    for (const auto& [key, replicas] : *wanted) {
        auto it = current->find(key);
        if (it == current->end()) {
            return fail("Topic " + key.first + " not found or has no partition " +
                        std::to_string(key.second));
        }
        before[key] = it->second;
        changes[key] = replicas;
    }
    std::printf(
        "Current partition replica assignment\n\n%s\n\nSave this to use as the "
        "--reassignment-json-file option during rollback\n",
        reassignment_json(before).c_str());
    if (o.throttle >= 0 || o.log_dir_throttle >= 0) {
        std::printf(
            "Warning: You must run --verify periodically, until the reassignment completes, to "
            "ensure the throttle is removed.\n");
    }
    if (o.throttle >= 0) {
        if (auto st =
                set_reassignment_throttles(o.client, throttles_for(*current, *wanted), o.throttle);
            !st) {
            return fail(st.err());
        }
        std::printf("The inter-broker throttle limit was set to %lld B/s\n",
                    static_cast<long long>(o.throttle));
    }
    if (o.log_dir_throttle >= 0) {
        std::set<int32_t> brokers;
        for (const auto& [replica, _] : *moves) {
            brokers.insert(replica.broker);
        }
        if (auto st = set_log_dir_move_throttle(o.client, brokers, o.log_dir_throttle); !st) {
            return fail(st.err());
        }
        std::printf("The replica-alter-dir throttle limit was set to %lld B/s\n",
                    static_cast<long long>(o.log_dir_throttle));
    }
    auto failed = alter(o.client, changes);
    if (!failed) {
        return fail(failed.err());
    }
    if (!failed->empty()) {
        return print_failures("reassigning", *failed);
    }
    std::vector<partition_key> started;
    for (const auto& [key, _] : *wanted) {
        started.push_back(key);
    }
    std::printf("Successfully started partition reassignment%s for %s\n",
                started.size() == 1 ? "" : "s", joined_names(started).c_str());
    if (!moves->empty()) {
        if (auto st = start_log_dir_moves(o.client, *moves); !st) {
            return fail(st.err());
        }
    }
    return 0;
}

int verify(const reassign_options& o, kafka_client& client) {
    auto wanted = read_reassignment(o.reassignment_json_file);
    if (!wanted) {
        return fail(wanted.err());
    }
    auto moves = read_log_dir_moves(o.reassignment_json_file);
    if (!moves) {
        return fail(moves.err());
    }
    auto moving = list_ongoing(o.client);
    if (!moving) {
        return fail(moving.err());
    }
    auto current = current_assignment(client, {});
    if (!current) {
        return fail(current.err());
    }
    std::printf("Status of partition reassignment:\n");
    bool ongoing = false;
    for (const auto& [key, replicas] : *wanted) {
        const auto it = current->find(key);
        if (moving->count(key)) {
            ongoing = true;
            std::printf("Reassignment of partition %s is still in progress.\n",
                        name_of(key).c_str());
        } else if (it != current->end() && it->second == replicas) {
            std::printf("Reassignment of partition %s is completed.\n", name_of(key).c_str());
        } else {
            std::printf(
                "There is no active reassignment of partition %s, but replica set is %s rather "
                "than %s.\n",
                name_of(key).c_str(), it == current->end() ? "" : joined(it->second).c_str(),
                joined(replicas).c_str());
        }
    }
    // Then the replicas' log dirs (a line of its own, empty without moves,
    // as Kafka's tool prints it).
    auto moves_ongoing = verify_log_dir_moves(o.client, *moves);
    if (!moves_ongoing) {
        return fail(moves_ongoing.err());
    }
    if (moves->empty()) {
        std::printf("\n");
    }
    ongoing |= *moves_ongoing;
    if (!ongoing && !o.preserve_throttles) {
        // As Kafka's tool: every throttle goes once nothing moves, on every
        // broker (the file cannot tell which ones sent), and on the file's
        // topics.
        auto md = client.metadata();
        if (!md) {
            return fail(md.err());
        }
        std::set<int32_t> brokers;
        for (const auto& b : md->brokers) {
            brokers.insert(b.id);
        }
        std::set<std::string> topics;
        for (const auto& [key, replicas] : *wanted) {
            brokers.insert(replicas.begin(), replicas.end());
            topics.insert(key.first);
        }
        std::printf("Clearing broker-level throttles on broker%s %s\n",
                    brokers.size() == 1 ? "" : "s",
                    joined(std::vector<int32_t>(brokers.begin(), brokers.end())).c_str());
        std::string topic_names;
        for (const auto& t : topics) {
            topic_names += (topic_names.empty() ? "" : ",") + t;
        }
        std::printf("Clearing topic-level throttles on topic%s %s\n", topics.size() == 1 ? "" : "s",
                    topic_names.c_str());
        if (auto st = clear_reassignment_throttles(o.client, brokers, topics); !st) {
            return fail(st.err());
        }
    }
    return 0;
}

int cancel(const reassign_options& o) {
    auto wanted = read_reassignment(o.reassignment_json_file);
    if (!wanted) {
        return fail(wanted.err());
    }
    std::map<partition_key, std::optional<std::vector<int32_t>>> changes;
    for (const auto& [key, _] : *wanted) {
        changes[key] = std::nullopt;
    }
    auto failed = alter(o.client, changes);
    if (!failed) {
        return fail(failed.err());
    }
    std::vector<partition_key> cancelled;
    std::map<partition_key, std::pair<int16_t, std::string>> errors;
    for (const auto& [key, _] : *wanted) {
        auto it = failed->find(key);
        if (it == failed->end()) {
            cancelled.push_back(key);
        } else if (it->second.first != int16_t(error_code::no_reassignment_in_progress)) {
            errors.insert(*it);
        }
    }
    if (!errors.empty()) {
        return print_failures("cancelling", errors);
    }
    if (cancelled.empty()) {
        std::printf("None of the specified partition reassignments are active.\n");
    } else {
        std::printf("Successfully cancelled partition reassignment%s for: %s\n",
                    cancelled.size() == 1 ? "" : "s", joined_names(cancelled).c_str());
    }
    return 0;
}

int list(const reassign_options& o) {
    auto moving = list_ongoing(o.client);
    if (!moving) {
        return fail(moving.err());
    }
    if (moving->empty()) {
        std::printf("No partition reassignments found.\n");
        return 0;
    }
    std::printf("Current partition reassignments:\n");
    for (const auto& [key, r] : *moving) {
        std::printf("%s: replicas: %s.%s%s\n", name_of(key).c_str(), joined(r.replicas).c_str(),
                    r.adding.empty() ? "" : (" adding: " + joined(r.adding) + ".").c_str(),
                    r.removing.empty() ? "" : (" removing: " + joined(r.removing) + ".").c_str());
    }
    return 0;
}

// Kafka's --generate: the topics' partitions spread over the broker list,
// each keeping its replication factor; replica i of partition p on broker
// (p + i) mod n of the list, so leaders go round the brokers.
int generate(const reassign_options& o, kafka_client& client) {
    auto j = read_json(o.topics_to_move_json_file);
    if (!j) {
        return fail(j.err());
    }
    std::vector<std::string> topics;
    if (j->contains("topics") && (*j)["topics"].is_array()) {
        for (const auto& t : (*j)["topics"]) {
            if (t.is_object() && t.contains("topic") && t["topic"].is_string()) {
                topics.push_back(t["topic"].get<std::string>());
            }
        }
    }
    if (topics.empty()) {
        return fail(o.topics_to_move_json_file +
                    ": expected {\"version\":1,\"topics\":[{\"topic\":\"...\"}]}");
    }
    if (o.broker_list.empty()) {
        return fail("--broker-list is required with --generate");
    }
    auto current = current_assignment(client, topics);
    if (!current) {
        return fail(current.err());
    }
    const size_t n = o.broker_list.size();
    assignment proposed;
    for (const auto& [key, replicas] : *current) {
        if (replicas.size() > n) {
            return fail("Replication factor: " + std::to_string(replicas.size()) +
                        " larger than available brokers: " + std::to_string(n) + ".");
        }
        std::vector<int32_t> next;
        for (size_t i = 0; i < replicas.size(); ++i) {
            next.push_back(o.broker_list[(size_t(key.second) + i) % n]);
        }
        proposed[key] = std::move(next);
    }
    std::printf("Current partition replica assignment\n%s\n\n",
                reassignment_json(*current).c_str());
    std::printf("Proposed partition reassignment configuration\n%s\n",
                reassignment_json(proposed).c_str());
    return 0;
}

int run_reassign_partitions(const reassign_options& o) {
    const int actions = o.generate + o.execute + o.verify + o.cancel + o.list;
    if (actions != 1) {
        return fail(
            "Command must include exactly one action: --generate, --execute, --verify, "
            "--cancel, or --list");
    }
    if ((o.execute || o.verify || o.cancel) && o.reassignment_json_file.empty()) {
        return fail("--reassignment-json-file is required with --execute, --verify and --cancel");
    }
    if (o.generate && o.topics_to_move_json_file.empty()) {
        return fail("--topics-to-move-json-file is required with --generate");
    }
    if ((o.throttle >= 0 || o.log_dir_throttle >= 0) && !o.execute) {
        return fail(
            "--throttle and --replica-alter-log-dirs-throttle are only used with --execute");
    }
    if (o.list) {
        return list(o);
    }
    if (o.cancel) {
        return cancel(o);
    }
    auto client = kafka_client::create(client_kind::producer, o.client,
                                       {{"client.id", "samsa-reassign-partitions"}});
    if (!client) {
        return fail(client.err());
    }
    return o.generate ? generate(o, *client) : o.execute ? execute(o, *client) : verify(o, *client);
}

}  // namespace

tool_command add_reassign_partitions_command(CLI::App& app) {
    auto o = std::make_shared<reassign_options>();
    auto* cmd = add_verb(app, "reassign-partitions",
                         "Move partitions between brokers (kafka-reassign-partitions.sh)");
    add_client_options(*cmd, o->client);
    cmd->add_flag("--generate", o->generate,
                  "Propose an assignment of --topics-to-move-json-file over --broker-list");
    cmd->add_flag("--execute", o->execute, "Start the reassignment of --reassignment-json-file");
    cmd->add_flag("--verify", o->verify, "Whether the reassignment of the file has completed");
    cmd->add_flag("--cancel", o->cancel, "Cancel the reassignment of the file's partitions");
    cmd->add_flag("--list", o->list, "List the reassignments in progress");
    cmd->add_option("--reassignment-json-file", o->reassignment_json_file,
                    "{\"version\":1,\"partitions\":[{\"topic\",\"partition\",\"replicas\"}]}");
    cmd->add_option("--topics-to-move-json-file", o->topics_to_move_json_file,
                    "{\"version\":1,\"topics\":[{\"topic\":\"...\"}]}");
    cmd->add_option("--broker-list", o->broker_list, "Brokers to spread over, as 1,2,3")
        ->delimiter(',');
    cmd->add_option("--throttle", o->throttle,
                    "Replication throttle in B/s on the brokers the moves involve (KIP-73)");
    cmd->add_option("--replica-alter-log-dirs-throttle", o->log_dir_throttle,
                    "Throttle in B/s of moves between the log dirs of a broker (KIP-113)");
    cmd->add_flag("--preserve-throttles", o->preserve_throttles,
                  "--verify leaves the throttles in place after the reassignment completes");
    return {cmd, [o] { return run_reassign_partitions(*o); }};
}

}  // namespace samsa::tools
