#include "server/handlers/create_acls.h"

#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::create_acls_request;
using protocol::create_acls_response;

asio::awaitable<create_acls_response> handle(request_context& ctx, create_acls_request& req) {
    if (!authorizer_enabled(ctx)) {
        co_return metadata::answer_with(req, error_code::security_disabled,
                                        "No Authorizer is configured.");
    }
    if (!authorized_on_cluster(ctx, acl::operation::alter)) {
        co_return metadata::answer_with(req, error_code::cluster_authorization_failed);
    }
    co_return co_await forward_to_controller(ctx, req);
}

}  // namespace

api_handler create_acls_handler() {
    return {create_acls_request::api_key, create_acls_request::min_version,
            create_acls_request::max_version,
            &typed_handler<create_acls_request, create_acls_response, &handle>};
}

}  // namespace samsa::server::handlers
