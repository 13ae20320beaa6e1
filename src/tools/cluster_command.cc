// `samsa cluster --describe`: the cluster id, the active controller, the
// brokers and the metadata quorum (leader, epoch, high watermark, each voter's
// log end offset), as kafka-cluster.sh (cluster-id) and kafka-metadata-quorum.sh
// show them. `samsa cluster unregister --id N`: kafka-cluster.sh unregister,
// for a broker decommissioned for good (UnregisterBroker, KIP-631).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "net/blocking_call.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"
#include "protocol/generated/unregister_broker_request.h"
#include "protocol/generated/unregister_broker_response.h"

#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/text_table.h"

namespace samsa::tools {

namespace {

struct cluster_options {
    client_options client;
    bool describe = false;
    CLI::App* unregister = nullptr;
    int32_t unregister_id = -1;
};

// DescribeQuorum through the first bootstrap server (any node answers it,
// forwarding to the quorum's leader), as kafka-metadata-quorum.sh --describe.
void print_quorum(const cluster_options& o) {
    auto to = bootstrap_target(o.client, "samsa-cluster");
    if (!to) {
        std::printf("Quorum: unavailable (%s)\n", to.err().message.c_str());
        return;
    }
    protocol::describe_quorum_request req;
    auto& t = req.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    t.partitions.emplace_back().partition_index = 0;
    const int16_t version = 1;
    auto answer = net::call_blocking<protocol::describe_quorum_response>(*to, req, version);
    if (!answer) {
        std::printf("Quorum: unavailable (%s)\n", answer.err().message.c_str());
        return;
    }
    const auto& resp = *answer;
    if (resp.error_code != 0 || resp.topics.empty() || resp.topics[0].partitions.empty() ||
        resp.topics[0].partitions[0].error_code != 0) {
        std::printf("Quorum: unavailable (no leader)\n");
        return;
    }
    const auto& p = resp.topics[0].partitions[0];
    std::printf("Quorum: leader %d, epoch %d, high watermark %lld\n", p.leader_id.value(),
                p.leader_epoch, static_cast<long long>(p.high_watermark));
    text_table table({{"NODE", 4}, {"ROLE", 8}, {"LOG END OFFSET", 14}, {"LAG", 5}, {"STATUS", 0}});
    auto add = [&](const auto& replicas, const char* role) {
        for (const auto& v : replicas) {
            const char* status = v.replica_id == p.leader_id ? "leader" : role;
            table.add_row(
                {std::to_string(v.replica_id.value()), role, std::to_string(v.log_end_offset),
                 std::to_string(std::max<int64_t>(0, p.high_watermark - v.log_end_offset)),
                 status});
        }
    };
    add(p.current_voters, "voter");
    add(p.observers, "observer");
    std::printf("%s", table.render().c_str());
}

// As kafka-cluster.sh unregister prints it.
int run_unregister(const cluster_options& o) {
    auto to = bootstrap_target(o.client, "samsa-cluster");
    if (!to) {
        return fail(to.err());
    }
    protocol::unregister_broker_request req;
    req.broker_id = node_id{o.unregister_id};
    auto resp = net::call_blocking<protocol::unregister_broker_response>(*to, req, 0);
    if (!resp) {
        return fail(resp.err());
    }
    if (resp->error_code != 0) {
        return fail(error(error_code(resp->error_code), resp->error_message.value_or("")));
    }
    std::printf("Broker %d is no longer registered.\n", o.unregister_id);
    return 0;
}

int run_cluster(const cluster_options& o) {
    if (o.unregister->parsed()) {
        return run_unregister(o);
    }
    auto client =
        kafka_client::create(client_kind::producer, o.client, {{"client.id", "samsa-cluster"}});
    if (!client) {
        return fail(client.err());
    }
    auto md = client->metadata();
    if (!md) {
        return fail(md.err());
    }
    // Both come from the Metadata answer just received; the wait is only a bound.
    char* cluster_id = rd_kafka_clusterid(client->handle(), client->timeout_ms());
    int32_t controller = rd_kafka_controllerid(client->handle(), client->timeout_ms());
    std::printf("Cluster ID: %s\n", cluster_id ? cluster_id : "none");
    if (cluster_id) {
        rd_kafka_mem_free(client->handle(), cluster_id);
    }
    std::printf("Controller: %s\n", controller >= 0 ? std::to_string(controller).c_str() : "none");
    text_table table({{"ID", 4}, {"HOST", 15}, {"PORT", 6}, {"CONTROLLER", 0}});
    for (const auto& b : md->brokers) {
        table.add_row({std::to_string(b.id), b.host, std::to_string(b.port),
                       b.id == controller ? "yes" : "no"});
    }
    std::printf("Brokers: %zu\n%s", md->brokers.size(), table.render().c_str());
    print_quorum(o);
    return 0;
}

}  // namespace

tool_command add_cluster_command(CLI::App& app) {
    auto o = std::make_shared<cluster_options>();
    auto* cmd = add_verb(app, "cluster", "Describe the cluster: id, controller, brokers");
    add_client_options(*cmd, o->client);
    cmd->add_flag("--describe", o->describe, "Describe the cluster (the default action)");
    o->unregister = cmd->add_subcommand("unregister",
                                        "Unregister a broker that is gone for good "
                                        "(kafka-cluster.sh unregister)");
    o->unregister->add_option("--id", o->unregister_id, "The broker's node id")->required();
    o->unregister->fallthrough();
    return {cmd, [o] { return run_cluster(*o); }};
}

}  // namespace samsa::tools
