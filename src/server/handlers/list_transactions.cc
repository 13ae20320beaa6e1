#include "server/handlers/list_transactions.h"

#include "server/authorization.h"

#include "common/clock.h"
#include "coordinator/txn/transaction_coordinator.h"
#include "protocol/generated/list_transactions_request.h"
#include "protocol/generated/list_transactions_response.h"

namespace samsa::server::handlers {

namespace {

using protocol::list_transactions_request;
using protocol::list_transactions_response;
namespace txn = coordinator::txn;

asio::awaitable<list_transactions_response> handle(request_context& ctx,
                                                   list_transactions_request& req) {
    list_transactions_response resp;
    auto* txns = ctx.broker->transactions;
    if (!txns) {
        resp.error_code = to_wire(error_code::coordinator_not_available);
        co_return resp;
    }
    std::vector<txn::txn_state> states;
    for (const auto& name : req.state_filters) {
        if (auto s = txn::txn_state_from_name(name)) {
            states.push_back(*s);
        } else {
            resp.unknown_state_filters.push_back(name);
        }
    }
    bool loading = false;
    auto listed = co_await txns->list(states, req.producer_id_filters, loading);
    if (!req.state_filters.empty() && states.empty()) {
        // Only unknown state names: Kafka filters by the names asked for, so
        // none matches (an empty filter would list every transaction).
        listed.clear();
    }
    if (loading) {
        resp.error_code = to_wire(error_code::coordinator_load_in_progress);
    }
    const int64_t duration = ctx.header.api_version >= 1 ? req.duration_filter : -1;
    const int64_t now = wall_clock_ms();
    for (const auto& t : listed) {
        if (duration >= 0 && (t.txn_start_ms < 0 || now - t.txn_start_ms <= duration)) {
            continue;
        }
        // Only the transactional ids the principal may DESCRIBE are listed.
        if (!authorized(ctx, acl::operation::describe, acl::resource_type::transactional_id,
                        t.transactional_id, on_denial::quiet)) {
            continue;
        }
        auto& s = resp.transaction_states.emplace_back();
        s.transactional_id = t.transactional_id;
        s.producer_id = producer_id{t.producer_id};
        s.transaction_state = txn::txn_state_name(t.state);
    }
    co_return resp;
}

}  // namespace

api_handler list_transactions_handler() {
    return {list_transactions_request::api_key, 0, list_transactions_request::max_version,
            &typed_handler<list_transactions_request, list_transactions_response, &handle>};
}

}  // namespace samsa::server::handlers
