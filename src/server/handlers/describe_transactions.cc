#include "server/handlers/describe_transactions.h"

#include "server/authorization.h"

#include "coordinator/txn/transaction_coordinator.h"
#include "protocol/generated/describe_transactions_request.h"
#include "protocol/generated/describe_transactions_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_transactions_request;
using protocol::describe_transactions_response;
namespace txn = coordinator::txn;

asio::awaitable<describe_transactions_response> handle(request_context& ctx,
                                                       describe_transactions_request& req) {
    describe_transactions_response resp;
    auto* txns = ctx.broker->transactions;
    for (const auto& id : req.transactional_ids) {
        auto& s = resp.transaction_states.emplace_back();
        s.transactional_id = id;
        if (!authorized(ctx, acl::operation::describe, acl::resource_type::transactional_id, id)) {
            s.error_code = to_wire(error_code::transactional_id_authorization_failed);
            continue;
        }
        if (!txns) {
            s.error_code = to_wire(error_code::coordinator_not_available);
            continue;
        }
        if (id.empty()) {
            // Kafka's TransactionCoordinator.handleDescribeTransactions.
            s.error_code = to_wire(error_code::invalid_request);
            continue;
        }
        auto [ec, m] = co_await txns->describe(id);
        s.error_code = to_wire(ec);
        if (ec != error_code::none) {
            continue;
        }
        s.transaction_state = txn::txn_state_name(m.state);
        s.transaction_timeout_ms = m.txn_timeout_ms;
        s.transaction_start_time_ms = m.txn_start_ms;
        s.producer_id = producer_id{m.producer_id};
        s.producer_epoch = m.producer_epoch;
        for (const auto& tp : m.partitions) {
            // The partitions of topics the principal may not DESCRIBE are left out.
            if (!authorized(ctx, acl::operation::describe, acl::resource_type::topic, tp.topic,
                            on_denial::quiet)) {
                continue;
            }
            if (s.topics.empty() || s.topics.back().topic != tp.topic) {
                s.topics.emplace_back().topic = tp.topic;
            }
            s.topics.back().partitions.push_back(tp.partition);
        }
    }
    co_return resp;
}

}  // namespace

api_handler describe_transactions_handler() {
    return {describe_transactions_request::api_key, 0, describe_transactions_request::max_version,
            &typed_handler<describe_transactions_request, describe_transactions_response, &handle>};
}

}  // namespace samsa::server::handlers
