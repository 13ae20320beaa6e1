// `samsa log-dirs --describe`: every broker's log directories and the
// partitions in them, as kafka-log-dirs.sh prints them (DescribeLogDirs, asked
// of each broker itself):
//
//   Querying brokers for log directories information
//   Received log directory information from brokers 1,2
//   {"brokers":[{"broker":1,"logDirs":[{"partitions":[{"partition":"t-0",
//     "size":123,"offsetLag":0,"isFuture":false}],"error":null,
//     "logDir":"/var/lib/samsa/data"}]}],"version":1}
//
// The JSON keys come in the order Kafka's tool writes them (its maps are Java
// HashMaps), so output compared as text matches too. --broker-list and
// --topic-list narrow it down.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "net/blocking_call.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

using ordered = nlohmann::ordered_json;
constexpr const char* k_client_id = "samsa-log-dirs";

struct log_dirs_options {
    client_options client;
    bool describe = false;
    std::vector<int32_t> broker_list;
    std::vector<std::string> topic_list;
};

// The Java exception a log dir's error names, as Kafka's tool prints it.
ordered error_of(int16_t code) {
    if (code == 0) {
        return nullptr;
    }
    switch (error_code(code)) {
        case error_code::kafka_storage_error:
            return "org.apache.kafka.common.errors.KafkaStorageException";
        case error_code::cluster_authorization_failed:
            return "org.apache.kafka.common.errors.ClusterAuthorizationException";
        default:
            return "org.apache.kafka.common.errors.UnknownServerException";
    }
}

int run_log_dirs(const log_dirs_options& o) {
    if (!o.describe) {
        return fail("Missing required argument \"[describe]\"");
    }
    auto targets = broker_targets(o.client, k_client_id);
    if (!targets) {
        return fail(targets.err());
    }
    std::set<int32_t> brokers;
    if (o.broker_list.empty()) {
        for (const auto& [id, _] : *targets) {
            brokers.insert(id);
        }
    } else {
        brokers.insert(o.broker_list.begin(), o.broker_list.end());
    }
    const std::set<std::string> topics(o.topic_list.begin(), o.topic_list.end());
    std::printf("Querying brokers for log directories information\n");
    ordered out_brokers = ordered::array();
    std::vector<int32_t> answered;
    for (int32_t id : brokers) {
        auto it = targets->find(id);
        if (it == targets->end()) {
            return fail("Broker " + std::to_string(id) + " is not in the cluster's metadata");
        }
        protocol::describe_log_dirs_request req;
        req.topics = std::nullopt;  // every partition
        auto resp = net::call_blocking<protocol::describe_log_dirs_response>(it->second, req, 4);
        if (!resp) {
            return fail(resp.err());
        }
        if (resp->error_code != 0) {
            return fail(message_of(resp->error_code, std::nullopt));
        }
        answered.push_back(id);
        ordered dirs = ordered::array();
        for (const auto& d : resp->results) {
            ordered parts = ordered::array();
            for (const auto& t : d.topics) {
                if (!topics.empty() && !topics.count(t.name)) {
                    continue;
                }
                for (const auto& p : t.partitions) {
                    parts.push_back(
                        {{"partition", t.name + "-" + std::to_string(p.partition_index)},
                         {"size", p.partition_size},
                         {"offsetLag", p.offset_lag},
                         {"isFuture", p.is_future_key}});
                }
            }
            dirs.push_back(
                {{"partitions", parts}, {"error", error_of(d.error_code)}, {"logDir", d.log_dir}});
        }
        out_brokers.push_back({{"broker", id}, {"logDirs", dirs}});
    }
    std::string ids;
    for (int32_t id : answered) {
        ids += (ids.empty() ? "" : ",") + std::to_string(id);
    }
    std::printf("Received log directory information from brokers %s\n", ids.c_str());
    std::printf("%s\n", ordered{{"brokers", out_brokers}, {"version", 1}}.dump().c_str());
    return 0;
}

}  // namespace

tool_command add_log_dirs_command(CLI::App& app) {
    auto o = std::make_shared<log_dirs_options>();
    auto* cmd = add_verb(app, "log-dirs",
                         "Describe the brokers' log directories and their partitions "
                         "(kafka-log-dirs.sh)");
    add_client_options(*cmd, o->client);
    cmd->add_flag("--describe", o->describe, "Describe the specified log directories");
    cmd->add_option("--broker-list", o->broker_list, "Brokers to ask, as 1,2,3 (default: all)")
        ->delimiter(',');
    cmd->add_option("--topic-list", o->topic_list, "Topics to show, as t1,t2 (default: all)")
        ->delimiter(',');
    return {cmd, [o] { return run_log_dirs(*o); }};
}

}  // namespace samsa::tools
