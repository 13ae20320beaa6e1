#include "server/handlers/delete_acls.h"

#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::delete_acls_request;
using protocol::delete_acls_response;

asio::awaitable<delete_acls_response> handle(request_context& ctx, delete_acls_request& req) {
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

api_handler delete_acls_handler() {
    return {delete_acls_request::api_key, delete_acls_request::min_version,
            delete_acls_request::max_version,
            &typed_handler<delete_acls_request, delete_acls_response, &handle>};
}

}  // namespace samsa::server::handlers
