// `samsa cluster --describe`: the cluster id, the active controller and the
// brokers, as kafka-cluster.sh (cluster-id) and kafka-metadata-quorum.sh show them.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/text_table.h"

namespace samsa::tools {

namespace {

struct cluster_options {
    client_options client;
    bool describe = false;
};

int run_cluster(const cluster_options& o) {
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
    return 0;
}

}  // namespace

tool_command add_cluster_command(CLI::App& app) {
    auto o = std::make_shared<cluster_options>();
    auto* cmd = add_verb(app, "cluster", "Describe the cluster: id, controller, brokers");
    add_client_options(*cmd, o->client);
    cmd->add_flag("--describe", o->describe, "Describe the cluster (the default action)");
    return {cmd, [o] { return run_cluster(*o); }};
}

}  // namespace samsa::tools
