#include "server/handlers/allocate_producer_ids.h"

#include "server/authorization.h"

#include "protocol/generated/allocate_producer_ids_request.h"
#include "protocol/generated/allocate_producer_ids_response.h"
#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::allocate_producer_ids_request;
using protocol::allocate_producer_ids_response;

asio::awaitable<allocate_producer_ids_response> handle(request_context& ctx,
                                                       allocate_producer_ids_request& req) {
    allocate_producer_ids_response resp;
    auto* channel = ctx.broker->controller;
    if (!channel || !channel->local()) {
        resp.error_code = to_wire(error_code::not_controller);
        co_return resp;
    }
    auto block = co_await channel->local()->allocate_producer_ids(
        metadata::producer_id_block_size, std::pair{req.broker_id, req.broker_epoch});
    if (!block) {
        resp.error_code = to_wire(block.err().code);
        co_return resp;
    }
    resp.producer_id_start = producer_id{block->first_producer_id};
    resp.producer_id_len = block->count;
    co_return resp;
}

}  // namespace

api_handler allocate_producer_ids_handler() {
    return {allocate_producer_ids_request::api_key, 0, allocate_producer_ids_request::max_version,
            &typed_handler<allocate_producer_ids_request, allocate_producer_ids_response,
                           &with_cluster_action<allocate_producer_ids_request,
                                                allocate_producer_ids_response, &handle>>};
}

}  // namespace samsa::server::handlers
