#include "server/handlers/delete_topics.h"

#include "common/error.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "server/quorum/controller_frontend.h"

namespace samsa::server::handlers {

namespace {

using protocol::delete_topics_request;
using protocol::delete_topics_response;

asio::awaitable<delete_topics_response> handle(request_context& ctx, delete_topics_request& req) {
    if (ctx.broker->config && !ctx.broker->config->delete_topic_enable) {
        if (ctx.header.api_version < 3) {
            co_return metadata::answer_with(req, error_code::invalid_request,
                                            "Topic deletion is disabled.");
        }
        co_return metadata::answer_with(req, error_code::topic_deletion_disabled, std::nullopt);
    }
    if (!ctx.broker->controller) {
        co_return metadata::answer_with(req, error_code::not_controller, std::nullopt);
    }
    co_return co_await ctx.broker->controller->call(std::move(req));
}

}  // namespace

api_handler delete_topics_handler() {
    return {delete_topics_request::api_key, 0, delete_topics_request::max_version,
            &typed_handler<delete_topics_request, delete_topics_response, &handle>};
}

}  // namespace samsa::server::handlers
