#include "server/handlers/describe_client_quotas.h"

#include "common/error.h"
#include "metadata/client_quota_describe.h"
#include "server/authorization.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_client_quotas_request;
using protocol::describe_client_quotas_response;

asio::awaitable<describe_client_quotas_response> handle(request_context& ctx,
                                                        describe_client_quotas_request& req) {
    if (!authorized_on_cluster(ctx, acl::operation::describe_configs)) {
        describe_client_quotas_response refused;
        refused.error_code = to_wire(error_code::cluster_authorization_failed);
        refused.error_message = std::nullopt;
        refused.entries = std::nullopt;
        co_return refused;
    }
    co_return metadata::describe_client_quotas(*ctx.broker->metadata.read(), req);
}

}  // namespace

api_handler describe_client_quotas_handler() {
    return {
        describe_client_quotas_request::api_key, describe_client_quotas_request::min_version,
        describe_client_quotas_request::max_version,
        &typed_handler<describe_client_quotas_request, describe_client_quotas_response, &handle>};
}

}  // namespace samsa::server::handlers
