#include "server/handlers/delete_topics.h"

#include "common/error.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

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
    // Topics named either way (by name before v6) need DELETE on each; one
    // named by an id nobody knows stays the controller's to answer.
    metadata::controller_api<delete_topics_request>::to_latest(req);
    const auto image = ctx.broker->metadata.read();
    auto refusal = [&](const delete_topics_request::delete_topic_state& t) {
        const metadata::topic_image* known = t.name ? nullptr : image->topic(t.topic_id);
        const std::optional<std::string> name = known ? std::optional(known->name) : t.name;
        return !name || authorized(ctx, acl::operation::delete_, acl::resource_type::topic, *name)
                   ? error_code::none
                   : error_code::topic_authorization_failed;
    };
    co_return co_await forward_authorized(ctx, req, &delete_topics_request::topics, refusal);
}

}  // namespace

api_handler delete_topics_handler() {
    return {delete_topics_request::api_key, 0, delete_topics_request::max_version,
            &typed_handler<delete_topics_request, delete_topics_response, &handle>};
}

}  // namespace samsa::server::handlers
