#include "server/handlers/alter_client_quotas.h"

#include "common/error.h"
#include "protocol/generated/alter_client_quotas_request.h"
#include "protocol/generated/alter_client_quotas_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::alter_client_quotas_request;
using protocol::alter_client_quotas_response;

asio::awaitable<alter_client_quotas_response> handle(request_context& ctx,
                                                     alter_client_quotas_request& req) {
    if (!authorized_on_cluster(ctx, acl::operation::alter_configs)) {
        co_return metadata::answer_with(req, error_code::cluster_authorization_failed);
    }
    co_return co_await forward_to_controller(ctx, req);
}

}  // namespace

api_handler alter_client_quotas_handler() {
    return {alter_client_quotas_request::api_key, alter_client_quotas_request::min_version,
            alter_client_quotas_request::max_version,
            &typed_handler<alter_client_quotas_request, alter_client_quotas_response, &handle>};
}

}  // namespace samsa::server::handlers
