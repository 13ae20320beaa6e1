#include "server/handlers/broker_registration.h"

#include "server/authorization.h"

#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::broker_registration_request;
using protocol::broker_registration_response;

asio::awaitable<broker_registration_response> handle(request_context& ctx,
                                                     broker_registration_request& req) {
    auto* channel = ctx.broker->controller;
    if (!channel || !channel->local()) {
        broker_registration_response resp;
        resp.error_code = to_wire(error_code::not_controller);
        co_return resp;
    }
    co_return co_await channel->local()->handle_broker_registration(std::move(req));
}

}  // namespace

api_handler broker_registration_handler() {
    return {broker_registration_request::api_key, 0, broker_registration_request::max_version,
            &typed_handler<broker_registration_request, broker_registration_response,
                           &with_cluster_action<broker_registration_request,
                                                broker_registration_response, &handle>>};
}

}  // namespace samsa::server::handlers
