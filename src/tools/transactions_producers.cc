// `samsa transactions describe-producers / find-hanging / abort`: the commands
// of kafka-transactions.sh that work on the partitions' producer state rather
// than on the coordinators (transactions_command.cc has list and describe).
//
//   describe-producers  DescribeProducers to the partition's leader (or --broker-id)
//   find-hanging        DescribeProducers over the partitions a broker hosts, then
//                       ListTransactions (by producer id, every broker) and
//                       DescribeTransactions: an open transaction older than
//                       --max-transaction-timeout that its coordinator no longer
//                       has on that partition is hanging
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

namespace samsa::tools {

namespace {

using producer_state =
    protocol::describe_producers_response::topic_response::partition_response::producer_state;

constexpr size_t max_batch = 500;  // partitions per DescribeProducers, as Kafka's tool

struct producer_options {
    std::shared_ptr<const client_options> client;
    std::string topic;
    std::optional<int32_t> partition;
    std::optional<int32_t> broker_id;
    int32_t max_timeout_min = 15;
    std::optional<int64_t> start_offset;
    std::optional<int64_t> producer_id;
    std::optional<int16_t> producer_epoch;
    std::optional<int32_t> coordinator_epoch;
};

struct topic_partition {
    std::string topic;
    int32_t partition = 0;
    auto operator<=>(const topic_partition&) const = default;
    std::string name() const { return topic + "-" + std::to_string(partition); }
};

std::string wire_error(int16_t code) {
    return std::string(error_name(error_code(code)));
}

std::string describe(const samsa::error& e) {
    return e.message.empty() ? std::string(error_name(e.code)) : e.message;
}

// The cluster as librdkafka's metadata shows it, and raw calls to its brokers.
class cluster {
  public:
    cluster(const client_options& opts, kafka_client& client) : _opts(&opts), _client(&client) {}

    result<void> refresh() {
        auto md = _client->metadata();
        if (!md) {
            return md.err();
        }
        _md = std::move(*md);
        return {};
    }

    const cluster_metadata& metadata() const { return _md; }

    const broker_info* broker(int32_t id) const {
        for (const auto& b : _md.brokers) {
            if (b.id == id) {
                return &b;
            }
        }
        return nullptr;
    }

    // The partition's leader, or the error Kafka's lookup would end with.
    result<const broker_info*> leader(const topic_partition& tp) const {
        const topic_info* t = _md.find(tp.topic);
        if (t == nullptr || t->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
            return error_code::unknown_topic_or_partition;
        }
        for (const auto& p : t->partitions) {
            if (p.id == tp.partition) {
                const broker_info* b = p.leader >= 0 ? broker(p.leader) : nullptr;
                if (b == nullptr) {
                    return error_code::leader_not_available;
                }
                return b;
            }
        }
        return error_code::unknown_topic_or_partition;
    }

    template <typename Response, typename Request>
    result<Response> call(const broker_info& b, const Request& req, int16_t version) const {
        return net::call_blocking<Response>(
            {b.host, uint16_t(b.port), "samsa-transactions", _opts->timeout}, req, version);
    }

  private:
    const client_options* _opts;
    kafka_client* _client;
    cluster_metadata _md;
};

struct partition_producers {
    int16_t error = 0;
    std::vector<producer_state> producers;
};

// DescribeProducers (key 61, v0) for `parts` on broker `b`, up to 500 partitions a
// request. Partitions the answer leaves out get UNKNOWN_SERVER_ERROR.
result<void> describe_producers(const cluster& c, const broker_info& b,
                                const std::vector<topic_partition>& parts,
                                std::map<topic_partition, partition_producers>& out) {
    for (size_t start = 0; start < parts.size(); start += max_batch) {
        protocol::describe_producers_request req;
        const size_t end = std::min(parts.size(), start + max_batch);
        for (size_t i = start; i < end; ++i) {
            if (req.topics.empty() || req.topics.back().name != parts[i].topic) {
                req.topics.emplace_back().name = parts[i].topic;
            }
            req.topics.back().partition_indexes.push_back(parts[i].partition);
            out[parts[i]].error = to_wire(error_code::unknown_server_error);
        }
        auto resp = c.call<protocol::describe_producers_response>(b, req, 0);
        if (!resp) {
            return resp.err();
        }
        for (auto& t : resp->topics) {
            for (auto& p : t.partitions) {
                auto it = out.find({t.name, p.partition_index});
                if (it != out.end()) {
                    it->second = {p.error_code, std::move(p.active_producers)};
                }
            }
        }
    }
    return {};
}

std::string optional_value(int64_t v) {
    return v < 0 ? "None" : std::to_string(v);
}

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
        table.add_row({std::to_string(p.producer_id), std::to_string(p.producer_epoch),
                       std::to_string(std::max(p.coordinator_epoch, -1)),
                       std::to_string(p.last_sequence), std::to_string(p.last_timestamp),
                       optional_value(p.current_txn_start_offset)});
    }
    std::printf("%s", table.render().c_str());
    return 0;
}

struct open_transaction {
    topic_partition tp;
    producer_state state;
};

// The partitions find-hanging searches: one, a topic's, or every topic's, kept to
// those with a replica on --broker-id.
std::vector<topic_partition> partitions_to_search(const producer_options& o,
                                                  const cluster_metadata& md) {
    if (!o.topic.empty() && o.partition) {
        return {{o.topic, *o.partition}};
    }
    std::vector<topic_partition> out;
    for (const auto& t : md.topics) {
        if ((!o.topic.empty() && t.name != o.topic) ||
            (o.topic.empty() && is_internal_topic(t.name))) {
            continue;
        }
        for (const auto& p : t.partitions) {
            if (!o.broker_id ||
                std::find(p.replicas.begin(), p.replicas.end(), *o.broker_id) != p.replicas.end()) {
                out.push_back({t.name, p.id});
            }
        }
    }
    return out;
}

// Open transactions (a start offset) whose last write is older than the timeout.
result<std::vector<open_transaction>> candidates(const producer_options& o, const cluster& c,
                                                 const std::vector<topic_partition>& parts) {
    const std::string where = "Failed to describe producers for " + std::to_string(parts.size()) +
                              " partitions" +
                              (o.broker_id ? " on broker " + std::to_string(*o.broker_id) : "");
    std::map<int32_t, std::vector<topic_partition>> by_broker;
    for (const auto& tp : parts) {
        if (o.broker_id) {
            by_broker[*o.broker_id].push_back(tp);
            continue;
        }
        auto leader = c.leader(tp);
        if (!leader) {
            return error(leader.err().code,
                         where + ": " + tp.name() + ": " + describe(leader.err()));
        }
        by_broker[(*leader)->id].push_back(tp);
    }
    std::map<topic_partition, partition_producers> found;
    for (const auto& [id, tps] : by_broker) {
        const broker_info* b = c.broker(id);
        if (b == nullptr) {
            return error(error_code::broker_not_available,
                         where + ": broker " + std::to_string(id) + " is not known");
        }
        if (auto r = describe_producers(c, *b, tps, found); !r) {
            return error(r.err().code, where + ": " + describe(r.err()));
        }
    }
    const int64_t max_ms = int64_t(o.max_timeout_min) * 60'000;
    const int64_t now = wall_clock_ms();
    std::vector<open_transaction> out;
    for (const auto& [tp, result] : found) {
        if (result.error != 0) {
            return error(error_code(result.error),
                         where + ": " + tp.name() + ": " + wire_error(result.error));
        }
        for (const auto& p : result.producers) {
            if (p.current_txn_start_offset >= 0 && now - p.last_timestamp > max_ms) {
                out.push_back({tp, p});
            }
        }
    }
    return out;
}

// producer id -> transactional id, from ListTransactions filtered by producer id
// on every broker.
result<std::map<int64_t, std::string>> transactional_ids(const cluster& c,
                                                         const std::set<int64_t>& pids) {
    const std::string where =
        "Failed to list transactions for " + std::to_string(pids.size()) + " producers";
    protocol::list_transactions_request req;
    req.producer_id_filters.assign(pids.begin(), pids.end());
    std::map<int64_t, std::string> out;
    for (const auto& b : c.metadata().brokers) {
        auto resp = c.call<protocol::list_transactions_response>(b, req, 0);
        if (!resp) {
            return error(resp.err().code,
                         where + ": broker " + std::to_string(b.id) + ": " + describe(resp.err()));
        }
        if (resp->error_code != 0) {
            return error(error_code(resp->error_code), where + ": broker " + std::to_string(b.id) +
                                                           ": " + wire_error(resp->error_code));
        }
        for (const auto& t : resp->transaction_states) {
            if (pids.contains(t.producer_id)) {
                out[t.producer_id] = t.transactional_id;
            }
        }
    }
    return out;
}

// transactional id -> the partitions its coordinator has in the transaction; an
// id the coordinator does not know (TRANSACTIONAL_ID_NOT_FOUND) is left out.
result<std::map<std::string, std::set<topic_partition>>> transaction_partitions(
    const cluster& c, const std::set<std::string>& ids) {
    const std::string where = "Failed to describe " + std::to_string(ids.size()) + " transactions";
    auto fail_with = [&](error_code code, const std::string& why) {
        return error(code, where + ": " + why);
    };
    if (c.metadata().brokers.empty()) {
        return fail_with(error_code::broker_not_available, "no broker is known");
    }
    protocol::find_coordinator_request find;
    find.key_type = 1;
    find.coordinator_keys.assign(ids.begin(), ids.end());
    auto found = c.call<protocol::find_coordinator_response>(c.metadata().brokers.front(), find, 4);
    if (!found) {
        return fail_with(found.err().code, describe(found.err()));
    }
    std::map<int32_t, std::vector<std::string>> by_coordinator;
    for (const auto& k : found->coordinators) {
        if (k.error_code != 0) {
            return fail_with(error_code(k.error_code), k.key + ": " + wire_error(k.error_code));
        }
        by_coordinator[k.node_id].push_back(k.key);
    }
    std::map<std::string, std::set<topic_partition>> out;
    for (const auto& [id, keys] : by_coordinator) {
        const broker_info* b = c.broker(id);
        if (b == nullptr) {
            return fail_with(error_code::broker_not_available,
                             "coordinator " + std::to_string(id) + " is not known");
        }
        protocol::describe_transactions_request req;
        req.transactional_ids = keys;
        auto resp = c.call<protocol::describe_transactions_response>(*b, req, 0);
        if (!resp) {
            return fail_with(resp.err().code, describe(resp.err()));
        }
        for (const auto& t : resp->transaction_states) {
            if (t.error_code == to_wire(error_code::transactional_id_not_found)) {
                continue;
            }
            if (t.error_code != 0) {
                return fail_with(error_code(t.error_code),
                                 t.transactional_id + ": " + wire_error(t.error_code));
            }
            auto& parts = out[t.transactional_id];
            for (const auto& topic : t.topics) {
                for (int32_t p : topic.partitions) {
                    parts.insert({topic.topic, p});
                }
            }
        }
    }
    return out;
}

int run_find_hanging(const producer_options& o) {
    if (o.topic.empty() && !o.broker_id) {
        return fail(
            "The `find-hanging` command requires either --topic or --broker-id to limit the "
            "scope of the search");
    }
    if (o.partition && o.topic.empty()) {
        return fail("The --partition argument requires --topic to be provided");
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
    auto open = candidates(o, c, partitions_to_search(o, c.metadata()));
    if (!open) {
        return fail(open.err());
    }
    std::vector<open_transaction> hanging;
    if (!open->empty()) {
        std::set<int64_t> pids;
        for (const auto& t : *open) {
            pids.insert(t.state.producer_id);
        }
        auto ids = transactional_ids(c, pids);
        if (!ids) {
            return fail(ids.err());
        }
        std::set<std::string> names;
        for (const auto& [pid, id] : *ids) {
            names.insert(id);
        }
        std::map<std::string, std::set<topic_partition>> described;
        if (!names.empty()) {
            auto d = transaction_partitions(c, names);
            if (!d) {
                return fail(d.err());
            }
            described = std::move(*d);
        }
        // Hanging: no transactional id has the producer id, the coordinator does not
        // know the id, or its transaction does not hold the partition (so no marker
        // for it will come).
        for (const auto& t : *open) {
            auto id = ids->find(t.state.producer_id);
            auto d = id == ids->end() ? described.end() : described.find(id->second);
            if (d == described.end() || !d->second.contains(t.tp)) {
                hanging.push_back(t);
            }
        }
    }
    std::sort(hanging.begin(), hanging.end(), [](const auto& a, const auto& b) {
        return std::tie(a.tp, a.state.producer_id) < std::tie(b.tp, b.state.producer_id);
    });
    text_table table({{"Topic", 0},
                      {"Partition", 0},
                      {"ProducerId", 0},
                      {"ProducerEpoch", 0},
                      {"CoordinatorEpoch", 0},
                      {"StartOffset", 0},
                      {"LastTimestamp", 0},
                      {"Duration(min)", 0}});
    const int64_t now = wall_clock_ms();
    for (const auto& t : hanging) {
        const auto& p = t.state;
        table.add_row({t.tp.topic, std::to_string(t.tp.partition), std::to_string(p.producer_id),
                       std::to_string(p.producer_epoch),
                       std::to_string(std::max(p.coordinator_epoch, -1)),
                       std::to_string(p.current_txn_start_offset), std::to_string(p.last_timestamp),
                       std::to_string((now - p.last_timestamp) / 60'000)});
    }
    std::printf("%s", table.render().c_str());
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
            return abort_spec{tp, p.producer_id, int16_t(p.producer_epoch),
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
    m.producer_id = spec.producer_id;
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
