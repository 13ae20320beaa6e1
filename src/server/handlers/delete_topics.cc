#include "server/handlers/delete_topics.h"

#include "common/error.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "server/quorum/controller_channel.h"

namespace samsa::server::handlers {

namespace {

using protocol::delete_topics_request;
using protocol::delete_topics_response;

// Every requested topic with the same error (Kafka's getErrorResponse).
delete_topics_response fail_all(const delete_topics_request& req, error_code code,
                                std::optional<std::string> message) {
    delete_topics_response resp;
    auto add = [&](std::optional<std::string> name, const uuid& id) {
        auto& r = resp.responses.emplace_back();
        r.name = std::move(name);
        r.topic_id = id;
        r.error_code = to_wire(code);
        r.error_message = message;
    };
    for (const auto& n : req.topic_names) {
        add(n, uuid{});
    }
    for (const auto& t : req.topics) {
        add(t.name, t.topic_id);
    }
    return resp;
}

asio::awaitable<delete_topics_response> handle(request_context& ctx, delete_topics_request& req) {
    if (ctx.broker->config && !ctx.broker->config->delete_topic_enable) {
        if (ctx.header.api_version < 3) {
            co_return fail_all(req, error_code::invalid_request, "Topic deletion is disabled.");
        }
        co_return fail_all(req, error_code::topic_deletion_disabled, std::nullopt);
    }
    if (!ctx.broker->controller) {
        co_return fail_all(req, error_code::not_controller, std::nullopt);
    }
    co_return co_await ctx.broker->controller->delete_topics(std::move(req));
}

}  // namespace

api_handler delete_topics_handler() {
    return {delete_topics_request::api_key, 0, delete_topics_request::max_version,
            &typed_handler<delete_topics_request, delete_topics_response, &handle>};
}

}  // namespace samsa::server::handlers
