#include "server/handlers/create_topics.h"

#include "common/error.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::create_topics_request;
using protocol::create_topics_response;

asio::awaitable<create_topics_response> handle(request_context& ctx, create_topics_request& req) {
    // CREATE on the cluster covers every topic; else CREATE on each (KIP-11).
    const bool on_cluster = authorized(ctx, acl::operation::create, acl::resource_type::cluster,
                                       acl::cluster_name, on_denial::quiet);
    auto refusal = [&](const create_topics_request::creatable_topic& t) {
        return on_cluster ||
                       authorized(ctx, acl::operation::create, acl::resource_type::topic, t.name)
                   ? error_code::none
                   : error_code::topic_authorization_failed;
    };
    co_return co_await forward_authorized(ctx, req, &create_topics_request::topics, refusal);
}

}  // namespace

api_handler create_topics_handler() {
    return {create_topics_request::api_key, 0, create_topics_request::max_version,
            &typed_handler<create_topics_request, create_topics_response, &handle>};
}

}  // namespace samsa::server::handlers
