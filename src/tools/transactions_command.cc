// `samsa transactions`: kafka-transactions.sh's `list` (every transactional
// id each broker coordinates, ListTransactions, KIP-664) and `describe
// --transactional-id` (FindCoordinator, then DescribeTransactions to the
// coordinator), with its columns. Its describe-producers, find-hanging and
// abort are in transactions_producers.cc.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/error.h"
#include "net/blocking_call.h"
#include "protocol/generated/describe_transactions_request.h"
#include "protocol/generated/describe_transactions_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/list_transactions_request.h"
#include "protocol/generated/list_transactions_response.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/text_table.h"

namespace samsa::tools {

// transactions_producers.cc: registers describe-producers, find-hanging and abort
// on the verb; the function runs the one parsed, nullopt if none was.
std::function<std::optional<int>()> add_producer_state_commands(
    CLI::App& cmd, std::shared_ptr<const client_options> client);

namespace {

struct transactions_options {
    client_options client;
    std::string transactional_id;
    std::vector<std::string> states;
};

std::string wire_error(int16_t code) {
    return std::string(error_name(error_code(code)));
}

int run_list(const transactions_options& o) {
    auto client = kafka_client::create(client_kind::producer, o.client,
                                       {{"client.id", "samsa-transactions"}});
    if (!client) {
        return fail(client.err());
    }
    auto md = client->metadata();
    if (!md) {
        return fail(md.err());
    }
    text_table table(
        {{"TransactionalId", 0}, {"Coordinator", 0}, {"ProducerId", 0}, {"TransactionState", 0}});
    int code = 0;
    for (const auto& b : md->brokers) {
        protocol::list_transactions_request req;
        req.state_filters = o.states;
        auto to = target_at(o.client, b.host, b.port, "samsa-transactions");
        if (!to) {
            return fail(to.err());
        }
        auto resp = net::call_blocking<protocol::list_transactions_response>(*to, req, 0);
        if (!resp) {
            std::fprintf(stderr, "Error: broker %d: %s\n", b.id, resp.err().message.c_str());
            code = 1;
            continue;
        }
        if (resp->error_code != 0) {
            std::fprintf(stderr, "Error: broker %d: %s\n", b.id,
                         wire_error(resp->error_code).c_str());
            code = 1;
        }
        for (const auto& t : resp->transaction_states) {
            table.add_row({t.transactional_id, std::to_string(b.id),
                           std::to_string(t.producer_id.value()), t.transaction_state});
        }
    }
    std::printf("%s", table.render_tabbed().c_str());
    return code;
}

int run_describe(const transactions_options& o) {
    if (o.transactional_id.empty()) {
        return fail("describe needs --transactional-id");
    }
    auto client = kafka_client::create(client_kind::producer, o.client,
                                       {{"client.id", "samsa-transactions"}});
    if (!client) {
        return fail(client.err());
    }
    auto md = client->metadata();
    if (!md) {
        return fail(md.err());
    }
    if (md->brokers.empty()) {
        return fail("no broker is known");
    }
    const auto& any = md->brokers.front();
    protocol::find_coordinator_request find;
    find.key_type = 1;
    find.coordinator_keys.push_back(o.transactional_id);
    auto to_any = target_at(o.client, any.host, any.port, "samsa-transactions");
    if (!to_any) {
        return fail(to_any.err());
    }
    auto found = net::call_blocking<protocol::find_coordinator_response>(*to_any, find, 4);
    if (!found) {
        return fail(found.err());
    }
    if (found->coordinators.empty() || found->coordinators[0].error_code != 0) {
        return fail("no coordinator for '" + o.transactional_id + "': " +
                    (found->coordinators.empty() ? std::string("no answer")
                                                 : wire_error(found->coordinators[0].error_code)));
    }
    const auto& c = found->coordinators[0];
    protocol::describe_transactions_request req;
    req.transactional_ids.push_back(o.transactional_id);
    auto to_coordinator = target_at(o.client, c.host, c.port, "samsa-transactions");
    if (!to_coordinator) {
        return fail(to_coordinator.err());
    }
    auto resp =
        net::call_blocking<protocol::describe_transactions_response>(*to_coordinator, req, 0);
    if (!resp) {
        return fail(resp.err());
    }
    if (resp->transaction_states.empty()) {
        return fail("the coordinator gave no answer for '" + o.transactional_id + "'");
    }
    const auto& t = resp->transaction_states[0];
    if (t.error_code != 0) {
        return fail("describing '" + o.transactional_id + "' failed: " + wire_error(t.error_code));
    }
    std::string partitions;
    for (const auto& topic : t.topics) {
        for (int32_t p : topic.partitions) {
            partitions += (partitions.empty() ? "" : ",") + topic.topic + "-" + std::to_string(p);
        }
    }
    const bool started = t.transaction_start_time_ms >= 0;
    text_table table({{"CoordinatorId", 0},
                      {"TransactionalId", 0},
                      {"ProducerId", 0},
                      {"ProducerEpoch", 0},
                      {"TransactionState", 0},
                      {"TransactionTimeoutMs", 0},
                      {"CurrentTransactionStartTimeMs", 0},
                      {"TransactionDurationMs", 0},
                      {"TopicPartitions", 0}});
    table.add_row({std::to_string(c.node_id.value()), t.transactional_id,
                   std::to_string(t.producer_id.value()), std::to_string(t.producer_epoch),
                   t.transaction_state, std::to_string(t.transaction_timeout_ms),
                   started ? std::to_string(t.transaction_start_time_ms) : "None",
                   started ? std::to_string(wall_clock_ms() - t.transaction_start_time_ms) : "None",
                   partitions});
    std::printf("%s", table.render_tabbed().c_str());
    return 0;
}

}  // namespace

tool_command add_transactions_command(CLI::App& app) {
    auto o = std::make_shared<transactions_options>();
    auto* cmd =
        add_verb(app, "transactions", "List, describe and abort transactions; find hanging ones");
    add_client_options(*cmd, o->client);
    auto* list = cmd->add_subcommand("list", "Every transactional id the brokers coordinate");
    list->add_option("--state", o->states,
                     "Only these states (Ongoing, PrepareCommit, CompleteAbort, ...)");
    auto* describe = cmd->add_subcommand("describe", "One transactional id's transaction");
    describe->add_option("--transactional-id", o->transactional_id, "The transactional id")
        ->required();
    auto producer_state =
        add_producer_state_commands(*cmd, std::shared_ptr<const client_options>(o, &o->client));
    cmd->require_subcommand(1);
    return {cmd, [o, list, describe, producer_state] {
                if (list->parsed()) {
                    return run_list(*o);
                }
                if (describe->parsed()) {
                    return run_describe(*o);
                }
                return producer_state().value_or(1);
            }};
}

}  // namespace samsa::tools
