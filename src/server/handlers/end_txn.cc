#include "server/handlers/end_txn.h"

#include "coordinator/txn/transaction_coordinator.h"
#include "protocol/generated/end_txn_request.h"
#include "protocol/generated/end_txn_response.h"
#include "server/handlers/txn_handler_support.h"

namespace samsa::server::handlers {

namespace {

using protocol::end_txn_request;
using protocol::end_txn_response;

constexpr int16_t max_served_version = 4;
constexpr int16_t first_fenced_version = 2;  // KIP-588

asio::awaitable<end_txn_response> handle(request_context& ctx, end_txn_request& req) {
    end_txn_response resp;
    auto* txns = ctx.broker->transactions;
    error_code ec = may_write_transaction(ctx, req.transactional_id)
                        ? error_code::coordinator_not_available
                        : error_code::transactional_id_authorization_failed;
    if (txns && ec == error_code::coordinator_not_available) {
        ec = co_await txns->end_txn(req.transactional_id, req.producer_id, req.producer_epoch,
                                    req.committed);
    }
    resp.error_code =
        to_wire(txn_error_for_version(ec, ctx.header.api_version, first_fenced_version));
    co_return resp;
}

}  // namespace

api_handler end_txn_handler() {
    return {end_txn_request::api_key, 0, max_served_version,
            &typed_handler<end_txn_request, end_txn_response, &handle>};
}

}  // namespace samsa::server::handlers
