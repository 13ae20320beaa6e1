#include "server/handlers/create_topics.h"

#include "common/error.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::create_topics_request;
using protocol::create_topics_response;

asio::awaitable<create_topics_response> handle(request_context& ctx, create_topics_request& req) {
    if (!ctx.broker->controller) {
        co_return metadata::answer_with(req, error_code::not_controller);
    }
    co_return co_await ctx.broker->controller->call(std::move(req));
}

}  // namespace

api_handler create_topics_handler() {
    return {create_topics_request::api_key, 0, create_topics_request::max_version,
            &typed_handler<create_topics_request, create_topics_response, &handle>};
}

}  // namespace samsa::server::handlers
