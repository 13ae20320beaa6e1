#include "server/handlers/create_topics.h"

#include "common/error.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "server/quorum/controller_channel.h"

namespace samsa::server::handlers {

namespace {

using protocol::create_topics_request;
using protocol::create_topics_response;

asio::awaitable<create_topics_response> handle(request_context& ctx, create_topics_request& req) {
    if (!ctx.broker->controller) {
        create_topics_response resp;
        for (const auto& t : req.topics) {
            auto& r = resp.topics.emplace_back();
            r.name = t.name;
            r.error_code = to_wire(error_code::not_controller);
            r.error_message = std::nullopt;
        }
        co_return resp;
    }
    co_return co_await ctx.broker->controller->create_topics(std::move(req));
}

}  // namespace

api_handler create_topics_handler() {
    return {create_topics_request::api_key, 0, create_topics_request::max_version,
            &typed_handler<create_topics_request, create_topics_response, &handle>};
}

}  // namespace samsa::server::handlers
