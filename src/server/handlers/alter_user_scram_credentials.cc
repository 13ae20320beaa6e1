#include "server/handlers/alter_user_scram_credentials.h"

#include "common/error.h"
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::alter_user_scram_credentials_request;
using protocol::alter_user_scram_credentials_response;

asio::awaitable<alter_user_scram_credentials_response> handle(
    request_context& ctx, alter_user_scram_credentials_request& req) {
    if (!authorized_on_cluster(ctx, acl::operation::alter)) {
        co_return metadata::answer_with(req, error_code::cluster_authorization_failed);
    }
    co_return co_await forward_to_controller(ctx, req);
}

}  // namespace

api_handler alter_user_scram_credentials_handler() {
    return {alter_user_scram_credentials_request::api_key,
            alter_user_scram_credentials_request::min_version,
            alter_user_scram_credentials_request::max_version,
            &typed_handler<alter_user_scram_credentials_request,
                           alter_user_scram_credentials_response, &handle>};
}

}  // namespace samsa::server::handlers
