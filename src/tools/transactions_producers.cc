// `samsa transactions describe-producers / find-hanging / abort`: the commands
// of kafka-transactions.sh that work on the partitions' producer state rather
// than on the coordinators (transactions_command.cc has list and describe).
//
//   describe-producers  DescribeProducers to the partition's leader (or --broker-id)
//   find-hanging        DescribeProducers over the partitions a broker hosts, then
//                       ListTransactions (by producer id, every broker) and
//                       DescribeTransactions: an open transaction older than
//                       --max-transaction-timeout that its coordinator no longer
//                       has on that partition is hanging (transactions_hanging.cc)
//   abort               WriteTxnMarkers (ABORT) straight to the partition's leader
//
// As Kafka's Admin client does it, with raw requests: librdkafka has none of these.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <compare>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/clock.h"
#include "common/error.h"
#include "net/blocking_call.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"
#include "protocol/generated/describe_transactions_request.h"
#include "protocol/generated/describe_transactions_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/list_transactions_request.h"
#include "protocol/generated/list_transactions_response.h"
#include "protocol/generated/write_txn_markers_request.h"
#include "protocol/generated/write_txn_markers_response.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/text_table.h"

#include "tools/producer_state_calls.h"

namespace samsa::tools {

namespace {

using namespace txn_producers;

int run_describe_producers(const producer_options& o) {
    const topic_partition tp{o.topic, *o.partition};
    const std::string where = "Failed to describe producers for partition " + tp.name() + " on " +
                              (o.broker_id ? "broker " + std::to_string(*o.broker_id) : "leader");
    auto client = kafka_client::create(client_kind::producer, *o.client,
                                       {{"client.id", "samsa-transactions"}});
    if (!client) {
        return fail(client.err());
    }
    cluster c(*o.client, *client);
    if (auto r = c.refresh(); !r) {
        return fail(r.err());
    }
    const broker_info* b = nullptr;
    if (o.broker_id) {
        b = c.broker(*o.broker_id);
        if (b == nullptr) {
            return fail(where + ": broker " + std::to_string(*o.broker_id) + " is not known");
        }
    } else {
        auto leader = c.leader(tp);
        if (!leader) {
            return fail(where + ": " + describe(leader.err()));
        }
        b = *leader;
    }
    std::map<topic_partition, partition_producers> found;
    if (auto r = describe_producers(c, *b, {tp}, found); !r) {
        return fail(where + ": " + describe(r.err()));
    }
    const auto& result = found[tp];
    if (result.error != 0) {
        return fail(where + ": " + wire_error(result.error));
    }
    text_table table({{"ProducerId", 0},
                      {"ProducerEpoch", 0},
                      {"LatestCoordinatorEpoch", 0},
                      {"LastSequence", 0},
                      {"LastTimestamp", 0},
                      {"CurrentTransactionStartOffset", 0}});
    for (const auto& p : result.producers) {
        table.add_row({std::to_string(p.producer_id.value()), std::to_string(p.producer_epoch),
                       std::to_string(std::max(p.coordinator_epoch, -1)),
                       std::to_string(p.last_sequence), std::to_string(p.last_timestamp),
                       optional_value(p.current_txn_start_offset)});
    }
    std::printf("%s", table.render_tabbed().c_str());
    return 0;
}

struct abort_spec {
    topic_partition tp;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t coordinator_epoch = 0;
    std::string text() const {
        return "AbortTransactionSpec(topicPartition=" + tp.name() +
               ", producerId=" + std::to_string(producer_id) +
               ", producerEpoch=" + std::to_string(producer_epoch) +
               ", coordinatorEpoch=" + std::to_string(coordinator_epoch) + ")";
    }
};

// The producer whose open transaction on the partition starts at `offset`.
result<abort_spec> spec_from_start_offset(const cluster& c, const topic_partition& tp,
                                          int64_t offset) {
    const std::string where = "Failed to validate producer state for partition " + tp.name();
    auto leader = c.leader(tp);
    if (!leader) {
        return error(leader.err().code, where + ": " + describe(leader.err()));
    }
    std::map<topic_partition, partition_producers> found;
    if (auto r = describe_producers(c, **leader, {tp}, found); !r) {
        return error(r.err().code, where + ": " + describe(r.err()));
    }
    const auto& result = found[tp];
    if (result.error != 0) {
        return error(error_code(result.error), where + ": " + wire_error(result.error));
    }
    for (const auto& p : result.producers) {
        if (p.current_txn_start_offset >= 0 && p.current_txn_start_offset == offset) {
            return abort_spec{tp, p.producer_id.value(), int16_t(p.producer_epoch),
                              std::max(p.coordinator_epoch, 0)};
        }
    }
    return error(error_code::invalid_txn_state,
                 "Could not find any open transactions starting at offset " +
                     std::to_string(offset) + " on partition " + tp.name());
}

// WriteTxnMarkers (key 27, v1), ABORT for the one partition, to its leader; the
// errors Kafka's Admin retries after looking the leader up again are retried
// until the timeout.
result<void> write_abort_marker(cluster& c, const abort_spec& spec,
                                std::chrono::milliseconds timeout) {
    protocol::write_txn_markers_request req;
    auto& m = req.markers.emplace_back();
    m.producer_id = producer_id{spec.producer_id};
    m.producer_epoch = spec.producer_epoch;
    m.transaction_result = false;
    m.coordinator_epoch = spec.coordinator_epoch;
    auto& t = m.topics.emplace_back();
    t.name = spec.tp.topic;
    t.partition_indexes.push_back(spec.tp.partition);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        error_code code = error_code::none;
        auto leader = c.leader(spec.tp);
        if (!leader) {
            code = leader.err().code;
        } else {
            auto resp = c.call<protocol::write_txn_markers_response>(**leader, req, 1);
            if (!resp) {
                return resp.err();
            }
            if (resp->markers.size() != 1 || resp->markers[0].topics.size() != 1 ||
                resp->markers[0].topics[0].partitions.size() != 1) {
                return error(error_code::unknown_server_error,
                             "WriteTxnMarkers response did not have exactly the one partition");
            }
            code = error_code(resp->markers[0].topics[0].partitions[0].error_code);
        }
        const bool retriable = code == error_code::not_leader_or_follower ||
                               code == error_code::replica_not_available ||
                               code == error_code::broker_not_available ||
                               code == error_code::leader_not_available ||
                               code == error_code::unknown_topic_or_partition;
        if (code == error_code::none) {
            return {};
        }
        if (!retriable || std::chrono::steady_clock::now() >= deadline) {
            return code;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // retry backoff
        if (auto r = c.refresh(); !r) {
            return r.err();
        }
    }
}

int run_abort(const producer_options& o) {
    const topic_partition tp{o.topic, *o.partition};
    if (!o.start_offset && !o.producer_id) {
        return fail(
            "The transaction to abort must be identified either with --start-offset (for brokers "
            "on 3.0 or above) or with --producer-id, --producer-epoch, and --coordinator-epoch "
            "(for older brokers)");
    }
    if (!o.start_offset && !o.producer_epoch) {
        return fail("Missing required argument --producer-epoch");
    }
    if (!o.start_offset && !o.coordinator_epoch) {
        return fail("Missing required argument --coordinator-epoch");
    }
    auto client = kafka_client::create(client_kind::producer, *o.client,
                                       {{"client.id", "samsa-transactions"}});
    if (!client) {
        return fail(client.err());
    }
    cluster c(*o.client, *client);
    if (auto r = c.refresh(); !r) {
        return fail(r.err());
    }
    abort_spec spec;
    if (o.start_offset) {
        auto s = spec_from_start_offset(c, tp, *o.start_offset);
        if (!s) {
            return fail(s.err());
        }
        spec = *s;
    } else {
        // A transaction that hung before its producer's first marker shows coordinator
        // epoch -1; 0 is at most any epoch a coordinator has had.
        spec = {tp, *o.producer_id, *o.producer_epoch, std::max(*o.coordinator_epoch, 0)};
    }
    if (auto r = write_abort_marker(c, spec, o.client->timeout); !r) {
        return fail("Failed to abort transaction " + spec.text() + ": " + describe(r.err()));
    }
    std::printf("Aborted transaction %s\n", spec.text().c_str());
    return 0;
}

}  // namespace

// Registers describe-producers, find-hanging and abort on `cmd` (the
// `transactions` verb); the returned function runs the one parsed, if any.
std::function<std::optional<int>()> add_producer_state_commands(
    CLI::App& cmd, std::shared_ptr<const client_options> client) {
    auto o = std::make_shared<producer_options>();
    o->client = std::move(client);

    auto* producers = cmd.add_subcommand(
        "describe-producers", "Describe the states of active producers for a topic partition");
    producers->add_option("--topic", o->topic, "Topic name")->required();
    producers->add_option("--partition", o->partition, "Partition number")->required();
    producers->add_option("--broker-id", o->broker_id,
                          "Describe the producer state on this replica instead of the leader");

    auto* hanging = cmd.add_subcommand("find-hanging", "Find hanging transactions");
    hanging->add_option("--broker-id", o->broker_id,
                        "Broker id to search for hanging transactions");
    hanging
        ->add_option("--max-transaction-timeout", o->max_timeout_min,
                     "Maximum transaction timeout in minutes to limit the scope of the search")
        ->capture_default_str();
    hanging->add_option("--topic", o->topic, "Topic name to limit the search to");
    hanging->add_option("--partition", o->partition, "Partition number");

    auto* abort = cmd.add_subcommand(
        "abort", "Abort a hanging transaction (requires administrative privileges)");
    abort->add_option("--topic", o->topic, "Topic name")->required();
    abort->add_option("--partition", o->partition, "Partition number")->required();
    abort->add_option("--start-offset", o->start_offset,
                      "Start offset of the transaction to abort (brokers 3.0 and above)");
    abort->add_option("--producer-id", o->producer_id, "Producer id (older brokers)");
    abort->add_option("--producer-epoch", o->producer_epoch, "Producer epoch (older brokers)");
    abort->add_option("--coordinator-epoch", o->coordinator_epoch,
                      "Coordinator epoch (older brokers)");

    return [o, producers, hanging, abort]() -> std::optional<int> {
        if (producers->parsed()) {
            return run_describe_producers(*o);
        }
        if (hanging->parsed()) {
            return run_find_hanging(*o);
        }
        if (abort->parsed()) {
            return run_abort(*o);
        }
        return std::nullopt;
    };
}

}  // namespace samsa::tools
