// `samsa metadata-quorum describe --status|--replication`: the KRaft
// metadata quorum as kafka-metadata-quorum.sh shows it, from DescribeQuorum v2
// (any broker answers it, forwarding to the quorum's leader) and the cluster id
// from Metadata:
//
//   --status        ClusterId, LeaderId, LeaderEpoch, HighWatermark,
//                   MaxFollowerLag, MaxFollowerLagTimeMs, CurrentVoters and
//                   CurrentObservers ({"id": 1, "directoryId": "...",
//                   "endpoints": ["CONTROLLER://host:port"]});
//   --replication   one row per replica: NodeId, DirectoryId, LogEndOffset,
//                   Lag, LastFetchTimestamp, LastCaughtUpTimestamp and Status
//                   (Leader, Follower, Observer); --human-readable shows the
//                   timestamps as "N ms ago".
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "net/blocking_call.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/text_table.h"

namespace samsa::tools {

namespace {

constexpr const char* k_client_id = "samsa-metadata-quorum";

struct quorum_options {
    client_options client;
    bool status = false;
    bool replication = false;
    bool human_readable = false;
};

using quorum_response = protocol::describe_quorum_response;
using replica_state = quorum_response::replica_state;

struct quorum_view {
    std::string cluster_id;
    quorum_response::topic_data::partition_data partition;
    std::vector<quorum_response::node> nodes;
};

result<quorum_view> describe(const quorum_options& o) {
    auto to = bootstrap_target(o.client, k_client_id);
    if (!to) {
        return to.err();
    }
    protocol::describe_quorum_request req;
    auto& t = req.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    t.partitions.emplace_back().partition_index = 0;
    auto resp = net::call_blocking<quorum_response>(*to, req, 2);
    if (!resp) {
        return resp.err();
    }
    if (resp->error_code != 0) {
        return error(error_code(resp->error_code),
                     message_of(resp->error_code, resp->error_message));
    }
    if (resp->topics.empty() || resp->topics[0].partitions.empty()) {
        return error(error_code::unknown_server_error, "DescribeQuorum answered no partition");
    }
    const auto& p = resp->topics[0].partitions[0];
    if (p.error_code != 0) {
        return error(error_code(p.error_code), message_of(p.error_code, p.error_message));
    }
    protocol::metadata_request md_req;
    md_req.topics.emplace();  // no topics: the cluster only
    md_req.allow_auto_topic_creation = false;
    auto md = net::call_blocking<protocol::metadata_response>(*to, md_req, 9);
    if (!md) {
        return md.err();
    }
    return quorum_view{md->cluster_id.value_or(""), p, resp->nodes};
}

// Kafka's Node.toString in MetadataQuorumCommand.
std::string replica_json(const replica_state& r, const std::vector<quorum_response::node>& nodes) {
    std::string out = "{\"id\": " + std::to_string(r.replica_id.value());
    if (!r.replica_directory_id.is_zero()) {
        out += ", \"directoryId\": \"" + r.replica_directory_id.to_string() + "\"";
    }
    auto node = std::find_if(nodes.begin(), nodes.end(),
                             [&](const auto& n) { return n.node_id == r.replica_id; });
    if (node != nodes.end() && !node->listeners.empty()) {
        out += ", \"endpoints\": [";
        for (size_t i = 0; i < node->listeners.size(); ++i) {
            const auto& l = node->listeners[i];
            const bool v6 = l.host.find(':') != std::string::npos;
            out += (i ? ", \"" : "\"") + l.name + "://" + (v6 ? "[" : "") + l.host +
                   (v6 ? "]" : "") + ":" + std::to_string(l.port) + "\"";
        }
        out += "]";
    }
    return out + "}";
}

std::string replicas_json(const std::vector<replica_state>& replicas,
                          const std::vector<quorum_response::node>& nodes) {
    std::string out = "[";
    for (size_t i = 0; i < replicas.size(); ++i) {
        out += (i ? ", " : "") + replica_json(replicas[i], nodes);
    }
    return out + "]";
}

const replica_state* leader_of(const quorum_view& q) {
    for (const auto& v : q.partition.current_voters) {
        if (v.replica_id == q.partition.leader_id) {
            return &v;
        }
    }
    return nullptr;
}

int print_status(const quorum_view& q) {
    const auto& p = q.partition;
    const replica_state* leader = leader_of(q);
    if (!leader) {
        return fail("The quorum has no leader among its voters");
    }
    // The voter furthest behind, and how long ago it last caught up
    // relative to the leader.
    const replica_state* laggard = &*std::min_element(
        p.current_voters.begin(), p.current_voters.end(),
        [](const auto& a, const auto& b) { return a.log_end_offset < b.log_end_offset; });
    int64_t lag_ms = -1;
    if (laggard->replica_id == leader->replica_id ||
        laggard->log_end_offset == leader->log_end_offset) {
        lag_ms = 0;
    } else if (leader->last_caught_up_timestamp >= 0 && laggard->last_caught_up_timestamp >= 0) {
        lag_ms = leader->last_caught_up_timestamp - laggard->last_caught_up_timestamp;
    }
    std::printf(
        "ClusterId:              %s\n"
        "LeaderId:               %d\n"
        "LeaderEpoch:            %d\n"
        "HighWatermark:          %lld\n"
        "MaxFollowerLag:         %lld\n"
        "MaxFollowerLagTimeMs:   %lld\n"
        "CurrentVoters:          %s\n"
        "CurrentObservers:       %s\n",
        q.cluster_id.c_str(), p.leader_id.value(), p.leader_epoch,
        static_cast<long long>(p.high_watermark),
        static_cast<long long>(leader->log_end_offset - laggard->log_end_offset),
        static_cast<long long>(lag_ms), replicas_json(p.current_voters, q.nodes).c_str(),
        replicas_json(p.observers, q.nodes).c_str());
    return 0;
}

int print_replication(const quorum_view& q, bool human_readable) {
    const auto& p = q.partition;
    const replica_state* leader = leader_of(q);
    if (!leader) {
        return fail("The quorum has no leader among its voters");
    }
    const int64_t now = wall_clock_ms();
    auto when = [&](int64_t ts) {
        if (ts < 0) {
            return std::string("-1");
        }
        return human_readable ? std::to_string(std::max<int64_t>(0, now - ts)) + " ms ago"
                              : std::to_string(ts);
    };
    std::vector<std::vector<std::string>> rows;
    auto add = [&](const replica_state& r, const char* status) {
        rows.push_back({std::to_string(r.replica_id.value()), r.replica_directory_id.to_string(),
                        std::to_string(r.log_end_offset),
                        std::to_string(leader->log_end_offset - r.log_end_offset),
                        when(r.last_fetch_timestamp), when(r.last_caught_up_timestamp), status});
    };
    add(*leader, "Leader");
    for (const auto& v : p.current_voters) {
        if (v.replica_id != leader->replica_id) {
            add(v, "Follower");
        }
    }
    for (const auto& v : p.observers) {
        add(v, "Observer");
    }
    std::printf("%s", kafka_pretty_table({"NodeId", "DirectoryId", "LogEndOffset", "Lag",
                                          "LastFetchTimestamp", "LastCaughtUpTimestamp", "Status"},
                                         rows)
                          .c_str());
    return 0;
}

int run_metadata_quorum(const quorum_options& o) {
    if (o.status == o.replication) {
        return fail("One of --status or --replication must be specified with describe");
    }
    if (o.human_readable && !o.replication) {
        return fail("--human-readable is only used with --replication");
    }
    auto q = describe(o);
    if (!q) {
        return fail(q.err());
    }
    return o.status ? print_status(*q) : print_replication(*q, o.human_readable);
}

}  // namespace

tool_command add_metadata_quorum_command(CLI::App& app) {
    auto o = std::make_shared<quorum_options>();
    auto* cmd = add_verb(app, "metadata-quorum",
                         "Describe the KRaft metadata quorum (kafka-metadata-quorum.sh)");
    add_client_options(*cmd, o->client);
    auto* describe = cmd->add_subcommand("describe", "Describe the metadata quorum info");
    describe->add_flag("--status", o->status, "A short summary of the quorum status");
    describe->add_flag("--replication", o->replication,
                       "Detailed information about the status of replication");
    describe->add_flag("--human-readable", o->human_readable,
                       "With --replication: timestamps as how long ago");
    cmd->require_subcommand(1);
    return {cmd, [o] { return run_metadata_quorum(*o); }};
}

}  // namespace samsa::tools
