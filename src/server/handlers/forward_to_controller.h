#pragma once
// The admin APIs the controller serves (metadata/controller_apis.h): a broker
// hands them to the controller frontend, which runs them here when this node
// is the active controller and forwards them otherwise. A node with no
// controller frontend answers NOT_CONTROLLER for every item.
#include <asio/awaitable.hpp>

#include "common/error.h"
#include "metadata/controller_apis.h"
#include "server/quorum/controller_frontend.h"
#include "server/request_context.h"

namespace samsa::server::handlers {

template <metadata::controller_served Request>
asio::awaitable<metadata::response_of<Request>> forward_to_controller(request_context& ctx,
                                                                      Request& req) {
    if (!ctx.broker->controller) {
        co_return metadata::answer_with(req, error_code::not_controller);
    }
    co_return co_await ctx.broker->controller->call(std::move(req));
}

}  // namespace samsa::server::handlers
