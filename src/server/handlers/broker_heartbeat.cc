#include "server/handlers/broker_heartbeat.h"

#include "server/authorization.h"

#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::broker_heartbeat_request;
using protocol::broker_heartbeat_response;

asio::awaitable<broker_heartbeat_response> handle(request_context& ctx,
                                                  broker_heartbeat_request& req) {
    auto* channel = ctx.broker->controller;
    if (!channel || !channel->local()) {
        broker_heartbeat_response resp;
        resp.error_code = to_wire(error_code::not_controller);
        co_return resp;
    }
    co_return co_await channel->local()->handle_broker_heartbeat(std::move(req));
}

}  // namespace

api_handler broker_heartbeat_handler() {
    return {
        broker_heartbeat_request::api_key, 0, broker_heartbeat_request::max_version,
        &typed_handler<
            broker_heartbeat_request, broker_heartbeat_response,
            &with_cluster_action<broker_heartbeat_request, broker_heartbeat_response, &handle>>};
}

}  // namespace samsa::server::handlers
