#include "server/handlers/add_offsets_to_txn.h"

#include "coordinator/group/group_config.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/txn/transaction_coordinator.h"
#include "protocol/generated/add_offsets_to_txn_request.h"
#include "protocol/generated/add_offsets_to_txn_response.h"
#include "server/handlers/txn_handler_support.h"

namespace samsa::server::handlers {

namespace {

using protocol::add_offsets_to_txn_request;
using protocol::add_offsets_to_txn_response;

constexpr int16_t max_served_version = 4;
constexpr int16_t first_fenced_version = 2;  // KIP-588

asio::awaitable<add_offsets_to_txn_response> handle(request_context& ctx,
                                                    add_offsets_to_txn_request& req) {
    add_offsets_to_txn_response resp;
    auto* txns = ctx.broker->transactions;
    auto* groups = ctx.broker->groups;
    // WRITE on the transactional id, READ on the group (KIP-11).
    if (!may_write_transaction(ctx, req.transactional_id)) {
        resp.error_code = to_wire(error_code::transactional_id_authorization_failed);
        co_return resp;
    }
    if (!authorized(ctx, acl::operation::read, acl::resource_type::group, req.group_id)) {
        resp.error_code = to_wire(error_code::group_authorization_failed);
        co_return resp;
    }
    if (!txns || !groups) {
        resp.error_code = to_wire(error_code::coordinator_not_available);
        co_return resp;
    }
    if (req.group_id.empty()) {
        resp.error_code = to_wire(error_code::invalid_group_id);
        co_return resp;
    }
    std::vector<storage::topic_partition> partitions{
        {coordinator::offsets_topic, groups->partition_for(req.group_id)}};
    const error_code ec = co_await txns->add_partitions(req.transactional_id, req.producer_id,
                                                        req.producer_epoch, partitions, false);
    resp.error_code =
        to_wire(txn_error_for_version(ec, ctx.header.api_version, first_fenced_version));
    co_return resp;
}

}  // namespace

api_handler add_offsets_to_txn_handler() {
    return {add_offsets_to_txn_request::api_key, 0, max_served_version,
            &typed_handler<add_offsets_to_txn_request, add_offsets_to_txn_response, &handle>};
}

}  // namespace samsa::server::handlers
