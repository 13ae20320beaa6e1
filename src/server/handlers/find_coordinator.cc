#include "server/handlers/find_coordinator.h"

#include "common/logging/loggers.h"
#include "server/authorization.h"

#include <spdlog/spdlog.h>

#include "common/error.h"
#include "coordinator/group/group_config.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/txn/transaction_coordinator.h"
#include "metadata/topic_creation.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::find_coordinator_request;
using protocol::find_coordinator_response;
using coordinator_entry = find_coordinator_response::coordinator;

constexpr int8_t key_type_group = 0;
constexpr int8_t key_type_transaction = 1;

coordinator_entry failed(const std::string& key, error_code ec) {
    coordinator_entry c;
    c.key = key;
    c.node_id = no_node;
    c.host = "";
    c.port = -1;
    c.error_code = to_wire(ec);
    c.error_message = std::string(error_message(ec));
    return c;
}

// The leader of partition `p` of the coordinator's internal topic (the
// group's __consumer_offsets partition, the transactional id's
// __transaction_state partition), as reachable on the listener the request
// came in on.
coordinator_entry coordinator_of(const request_context& ctx, const std::string& key,
                                 const char* topic_name, int32_t p) {
    auto image = ctx.broker->metadata.read();
    const auto* topic = image->topic(topic_name);
    if (!topic) {
        return failed(key, error_code::coordinator_not_available);
    }
    if (p < 0 || size_t(p) >= topic->partitions.size()) {
        return failed(key, error_code::coordinator_not_available);
    }
    const node_id leader = topic->partitions[size_t(p)].leader;
    auto b = image->brokers.find(leader);
    if (!leader.is_valid() || b == image->brokers.end() || b->second.fenced) {
        return failed(key, error_code::coordinator_not_available);
    }
    const auto* ep = b->second.endpoint(ctx.listener_name);
    if (!ep) {
        return failed(key, error_code::coordinator_not_available);
    }
    coordinator_entry c;
    c.key = key;
    c.node_id = leader;
    c.host = ep->host;
    c.port = ep->port;
    c.error_code = to_wire(error_code::none);
    c.error_message = std::nullopt;
    return c;
}

// Kafka creates __consumer_offsets (__transaction_state) when a group (a
// transactional id) first needs a coordinator. With a one-node controller
// the topic exists when this returns (or could not be made, e.g. a
// replication factor above the live brokers: the answer stays
// COORDINATOR_NOT_AVAILABLE, as in Kafka).
asio::awaitable<void> ensure_internal_topic(request_context& ctx, const char* name) {
    if (ctx.broker->metadata.read()->topic(name) || !ctx.broker->controller ||
        !ctx.broker->config) {
        co_return;
    }
    protocol::create_topics_request creq;
    creq.topics.push_back(metadata::auto_created_topic(name, *ctx.broker->config));
    // The call and the co_await are separate statements: no temporary of the
    // call lives in the co_await operand (GCC 12 destroys those twice).
    auto creating = ctx.broker->controller->call(std::move(creq));
    auto created = co_await std::move(creating);
    for (const auto& t : created.topics) {
        auto ec = error_code(t.error_code);
        if (ec != error_code::none && ec != error_code::topic_already_exists) {
            logging::server().warn(
                "event=internal_topic_create_failed topic={} error={} message=\"{}\"", name,
                error_name(ec), t.error_message.value_or(""));
        } else if (ec == error_code::none) {
            logging::server().info("event=internal_topic_created topic={} partitions={}", name,
                                   t.num_partitions);
        }
    }
}

asio::awaitable<find_coordinator_response> handle(request_context& ctx,
                                                  find_coordinator_request& req) {
    const int16_t version = ctx.header.api_version;
    if (ctx.broker->groups) {
        ctx.broker->groups->count(coordinator::group_api::find_coordinator);
    }
    const int8_t key_type = version >= 1 ? req.key_type : key_type_group;
    std::vector<std::string> keys;
    if (version >= 4) {
        keys = req.coordinator_keys;
    } else {
        keys.push_back(req.key);
    }
    find_coordinator_response resp;
    auto* groups = ctx.broker->groups;
    auto* txns = ctx.broker->transactions;
    if (key_type == key_type_group && !keys.empty() && groups) {
        co_await ensure_internal_topic(ctx, coordinator::offsets_topic);
    } else if (key_type == key_type_transaction && !keys.empty() && txns) {
        co_await ensure_internal_topic(ctx, coordinator::txn::transaction_state_topic);
    }
    for (const auto& key : keys) {
        // DESCRIBE on the group or the transactional id (KIP-11).
        if (key_type == key_type_group &&
            !authorized(ctx, acl::operation::describe, acl::resource_type::group, key)) {
            resp.coordinators.push_back(failed(key, error_code::group_authorization_failed));
        } else if (key_type == key_type_transaction &&
                   !authorized(ctx, acl::operation::describe, acl::resource_type::transactional_id,
                               key)) {
            resp.coordinators.push_back(
                failed(key, error_code::transactional_id_authorization_failed));
        } else if (key_type == key_type_group) {
            resp.coordinators.push_back(groups
                                            ? coordinator_of(ctx, key, coordinator::offsets_topic,
                                                             groups->partition_for(key))
                                            : failed(key, error_code::coordinator_not_available));
        } else if (key_type == key_type_transaction) {
            resp.coordinators.push_back(
                txns ? coordinator_of(ctx, key, coordinator::txn::transaction_state_topic,
                                      txns->partition_for(key))
                     : failed(key, error_code::coordinator_not_available));
        } else {
            resp.coordinators.push_back(failed(key, error_code::invalid_request));
        }
    }
    if (version < 4) {
        const auto& c = resp.coordinators.front();
        resp.error_code = c.error_code;
        resp.error_message = c.error_message;
        resp.node_id = c.node_id;
        resp.host = c.host;
        resp.port = c.port;
        resp.coordinators.clear();
    }
    co_return resp;
}

}  // namespace

api_handler find_coordinator_handler() {
    return {find_coordinator_request::api_key, 0, find_coordinator_request::max_version,
            &typed_handler<find_coordinator_request, find_coordinator_response, &handle>};
}

}  // namespace samsa::server::handlers
