#include "server/handlers/delete_topics.h"

#include <algorithm>

#include "common/error.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"
#include "server/quota/controller_mutation_quota.h"

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
    // Then the controller mutation quota (KIP-599), strict from v5: each
    // topic takes its partitions.
    quota::controller_mutation_quota mutations(ctx, 5);
    auto refusal = [&](const delete_topics_request::delete_topic_state& t) {
        const metadata::topic_image* known =
            t.name ? image->topic(*t.name) : image->topic(t.topic_id);
        const std::optional<std::string> name = t.name  ? t.name
                                                : known ? std::optional(known->name)
                                                        : std::nullopt;
        if (name && !authorized(ctx, acl::operation::delete_, acl::resource_type::topic, *name)) {
            return error_code::topic_authorization_failed;
        }
        return known ? mutations.charge(known->name, double(known->partitions.size()))
                     : error_code::none;
    };
    auto resp = co_await forward_authorized(ctx, req, &delete_topics_request::topics, refusal);
    mutations.settle(resp, resp.responses, [&](const auto& r) -> std::optional<std::string> {
        const metadata::topic_image* known =
            r.name ? image->topic(*r.name) : image->topic(r.topic_id);
        return known ? std::optional(known->name) : std::nullopt;
    });
    co_return resp;
}

}  // namespace

api_handler delete_topics_handler() {
    return {delete_topics_request::api_key, 0, delete_topics_request::max_version,
            &typed_handler<delete_topics_request, delete_topics_response, &handle>};
}

}  // namespace samsa::server::handlers
