#include "server/handlers/elect_leaders.h"

#include "server/authorization.h"

#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::elect_leaders_request;
using protocol::elect_leaders_response;

asio::awaitable<elect_leaders_response> handle(request_context& ctx, elect_leaders_request& req) {
    const int16_t version = ctx.header.api_version;
    elect_leaders_response resp;
    if (!authorized_on_cluster(ctx, acl::operation::alter)) {
        resp.error_code = to_wire(error_code::cluster_authorization_failed);
        co_return resp;
    }
    if (!ctx.broker->controller) {
        resp.error_code = to_wire(error_code::not_controller);
        co_return resp;
    }
    auto answer = co_await ctx.broker->controller->elect_leaders(req, version);
    if (!answer) {
        resp.error_code = to_wire(error_code::not_controller);
        co_return resp;
    }
    co_return std::move(*answer);
}

}  // namespace

api_handler elect_leaders_handler() {
    return {elect_leaders_request::api_key, 0, elect_leaders_request::max_version,
            &typed_handler<elect_leaders_request, elect_leaders_response, &handle>};
}

}  // namespace samsa::server::handlers
