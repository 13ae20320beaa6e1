#include "server/handlers/init_producer_id.h"

#include "common/logging/loggers.h"
#include "server/handlers/txn_handler_support.h"

#include <spdlog/spdlog.h>

#include "common/error.h"
#include "coordinator/txn/producer_id_manager.h"
#include "coordinator/txn/transaction_coordinator.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "record/batch_header.h"

namespace samsa::server::handlers {

namespace {

using protocol::init_producer_id_request;
using protocol::init_producer_id_response;

init_producer_id_response failed(error_code ec) {
    init_producer_id_response resp;
    resp.error_code = to_wire(ec);
    resp.producer_id = no_producer_id;
    resp.producer_epoch = record::no_producer_epoch;
    return resp;
}

asio::awaitable<init_producer_id_response> handle(request_context& ctx,
                                                  init_producer_id_request& req) {
    // Kafka's KafkaApis: a producer id without an epoch (or the reverse) is
    // malformed. v0-2 carry neither (both default to -1).
    const bool has_id = req.producer_id != no_producer_id;
    const bool has_epoch = req.producer_epoch != record::no_producer_epoch;
    if (has_id != has_epoch) {
        co_return failed(error_code::invalid_request);
    }
    if (req.transactional_id) {
        if (req.transactional_id->empty()) {
            // As Kafka's TransactionCoordinator, consistent with its clients.
            co_return failed(error_code::invalid_request);
        }
        if (!may_write_transaction(ctx, *req.transactional_id)) {
            co_return failed(error_code::transactional_id_authorization_failed);
        }
        if (!ctx.broker->transactions) {
            co_return failed(error_code::coordinator_not_available);
        }
        auto r = co_await ctx.broker->transactions->init_producer_id(
            *req.transactional_id, req.transaction_timeout_ms, req.producer_id, req.producer_epoch);
        if (r.error != error_code::none) {
            // KIP-588: PRODUCER_FENCED came with v4.
            co_return failed(txn_error_for_version(r.error, ctx.header.api_version, 4));
        }
        init_producer_id_response resp;
        resp.producer_id = producer_id{r.producer_id};
        resp.producer_epoch = r.producer_epoch;
        co_return resp;
    }
    // An idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE
    // on some topic (KIP-679).
    if (!authorized(ctx, acl::operation::idempotent_write, acl::resource_type::cluster,
                    acl::cluster_name, on_denial::quiet) &&
        !authorized_on_any(ctx, acl::operation::write, acl::resource_type::topic)) {
        co_return failed(error_code::cluster_authorization_failed);
    }
    auto* ids = ctx.broker->producer_ids;
    if (!ids) {
        co_return failed(error_code::coordinator_not_available);
    }
    auto id = co_await ids->next_producer_id();
    if (!id) {
        logging::transactions().warn("event=producer_id_allocation_failed peer={} error=\"{}\"",
                                     ctx.peer, id.err().message);
        co_return failed(id.err().code);
    }
    init_producer_id_response resp;
    resp.producer_id = producer_id{*id};
    resp.producer_epoch = 0;
    co_return resp;
}

}  // namespace

api_handler init_producer_id_handler() {
    return {init_producer_id_request::api_key, 0, init_producer_id_request::max_version,
            &typed_handler<init_producer_id_request, init_producer_id_response, &handle>};
}

}  // namespace samsa::server::handlers
