// `samsa transactions find-hanging` (kafka-transactions.sh): DescribeProducers
// over the partitions a broker hosts, then ListTransactions (by producer id,
// every broker) and DescribeTransactions: an open transaction older than
// --max-transaction-timeout that its coordinator no longer has on that
// partition is hanging.
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

namespace samsa::tools::txn_producers {

namespace {

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
    for (int64_t pid : pids) {
        req.producer_id_filters.emplace_back(pid);
    }
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
            if (pids.contains(t.producer_id.value())) {
                out[t.producer_id.value()] = t.transactional_id;
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
        by_coordinator[k.node_id.value()].push_back(k.key);
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

}  // namespace

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
            pids.insert(t.state.producer_id.value());
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
            auto id = ids->find(t.state.producer_id.value());
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
        table.add_row({t.tp.topic, std::to_string(t.tp.partition),
                       std::to_string(p.producer_id.value()), std::to_string(p.producer_epoch),
                       std::to_string(std::max(p.coordinator_epoch, -1)),
                       std::to_string(p.current_txn_start_offset), std::to_string(p.last_timestamp),
                       std::to_string((now - p.last_timestamp) / 60'000)});
    }
    std::printf("%s", table.render_tabbed().c_str());
    return 0;
}

}  // namespace samsa::tools::txn_producers
