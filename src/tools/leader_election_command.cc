// `samsa leader-election`: kafka-leader-election.sh — elect the preferred
// replica (the first of the assignment) or, with no ISR member alive, any live
// replica (unclean) as the leader of partitions (ElectLeaders, KIP-183 and
// KIP-460; a raw request, the librdkafka this links has no API for it).
//
//   --election-type preferred|unclean
//   --topic T --partition P | --all-topic-partitions | --path-to-json-file F
//
// The file is Kafka's: {"partitions":[{"topic":"t","partition":0}]}.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/result.h"
#include "net/blocking_call.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"
#include "tools/commands.h"
#include "tools/json_file.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

struct election_options {
    client_options client;
    std::string election_type;
    std::string topic;
    int32_t partition = -1;
    bool all_topic_partitions = false;
    std::string path_to_json_file;
};

using partitions = std::map<std::string, std::vector<int32_t>>;

result<partitions> read_partitions(const std::string& path) {
    auto read = read_json_file(path);
    if (!read) {
        return read.err();
    }
    const nlohmann::json& j = *read;
    const char* shape = ": expected {\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}";
    if (j.is_discarded() || !j.is_object() || !j.contains("partitions") ||
        !j["partitions"].is_array()) {
        return error(error_code::invalid_config, path + shape);
    }
    partitions out;
    for (const auto& p : j["partitions"]) {
        if (!p.is_object() || !p.contains("topic") || !p["topic"].is_string() ||
            !p.contains("partition") || !p["partition"].is_number_integer()) {
            return error(error_code::invalid_config, path + shape);
        }
        auto& list = out[p["topic"].get<std::string>()];
        const int32_t id = p["partition"].get<int32_t>();
        if (std::find(list.begin(), list.end(), id) != list.end()) {
            return error(error_code::invalid_config, path + ": duplicate partition " +
                                                         p["topic"].get<std::string>() + "-" +
                                                         std::to_string(id));
        }
        list.push_back(id);
    }
    if (out.empty()) {
        return error(error_code::invalid_config, path + ": no partitions");
    }
    return out;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

int run_leader_election(const election_options& o) {
    std::string type = o.election_type;
    std::transform(type.begin(), type.end(), type.begin(),
                   [](unsigned char c) { return char(std::toupper(c)); });
    if (type != "PREFERRED" && type != "UNCLEAN") {
        return fail("--election-type must be preferred or unclean, not '" + o.election_type + "'");
    }
    const int sources = !o.topic.empty() + o.all_topic_partitions + !o.path_to_json_file.empty();
    if (sources != 1) {
        return fail(
            "One and only one of the following options is required: --all-topic-partitions, "
            "--topic, --path-to-json-file");
    }
    if (!o.topic.empty() && o.partition < 0) {
        return fail("--partition is required with --topic");
    }
    protocol::elect_leaders_request req;
    req.election_type = type == "PREFERRED" ? 0 : 1;
    req.timeout_ms = int32_t(o.client.timeout.count());
    if (o.all_topic_partitions) {
        req.topic_partitions = std::nullopt;  // every partition
    } else {
        partitions asked;
        if (!o.topic.empty()) {
            asked[o.topic] = {o.partition};
        } else {
            auto read = read_partitions(o.path_to_json_file);
            if (!read) {
                return fail(read.err());
            }
            asked = std::move(*read);
        }
        for (auto& [topic, ids] : asked) {
            auto& t = req.topic_partitions->emplace_back();
            t.topic = topic;
            t.partitions = ids;
        }
    }
    auto target = bootstrap_target(o.client, "samsa-leader-election");
    if (!target) {
        return fail(target.err());
    }
    auto resp = net::call_blocking<protocol::elect_leaders_response>(*target, req, 2);
    if (!resp) {
        return fail(resp.err());
    }
    if (resp->error_code != 0) {
        return fail(message_of(resp->error_code, std::nullopt));
    }
    std::vector<std::string> succeeded, noop;
    std::vector<std::pair<std::string, std::string>> failed;
    for (const auto& t : resp->replica_election_results) {
        for (const auto& p : t.partition_result) {
            const std::string name = t.topic + "-" + std::to_string(p.partition_id);
            if (p.error_code == 0) {
                succeeded.push_back(name);
            } else if (p.error_code == int16_t(error_code::election_not_needed)) {
                noop.push_back(name);
            } else {
                failed.emplace_back(name, std::string(error_name(error_code(p.error_code))) + ": " +
                                              message_of(p.error_code, p.error_message));
            }
        }
    }
    std::sort(succeeded.begin(), succeeded.end());
    std::sort(noop.begin(), noop.end());
    if (!succeeded.empty()) {
        std::printf("Successfully completed leader election (%s) for partitions %s\n", type.c_str(),
                    joined(succeeded).c_str());
    }
    if (!noop.empty()) {
        std::printf("Valid replica already elected for partitions %s\n", joined(noop).c_str());
    }
    if (!failed.empty()) {
        for (const auto& [name, why] : failed) {
            std::printf("Error completing leader election (%s) for partition: %s: %s\n",
                        type.c_str(), name.c_str(), why.c_str());
        }
        std::fflush(stdout);
        return fail(std::to_string(failed.size()) + " replica(s) could not be elected");
    }
    return 0;
}

}  // namespace

tool_command add_leader_election_command(CLI::App& app) {
    auto o = std::make_shared<election_options>();
    auto* cmd = add_verb(app, "leader-election",
                         "Elect partition leaders: the preferred replica, or unclean");
    add_client_options(*cmd, o->client);
    cmd->add_option("--election-type", o->election_type, "preferred or unclean")->required();
    cmd->add_option("--topic", o->topic, "The topic of --partition");
    cmd->add_option("--partition", o->partition, "The partition of --topic")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--all-topic-partitions", o->all_topic_partitions, "Every partition");
    cmd->add_option("--path-to-json-file", o->path_to_json_file,
                    "{\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}");
    return {cmd, [o] { return run_leader_election(*o); }};
}

}  // namespace samsa::tools
