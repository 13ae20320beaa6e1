#include "server/handlers/incremental_alter_configs.h"

#include "common/error.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::incremental_alter_configs_request;
using protocol::incremental_alter_configs_response;

asio::awaitable<incremental_alter_configs_response> handle(request_context& ctx,
                                                           incremental_alter_configs_request& req) {
    co_return co_await forward_authorized(ctx, req, &incremental_alter_configs_request::resources,
                                          config_alteration_refusal(ctx));
}

}  // namespace

api_handler incremental_alter_configs_handler() {
    return {incremental_alter_configs_request::api_key, 0,
            incremental_alter_configs_request::max_version,
            &typed_handler<incremental_alter_configs_request, incremental_alter_configs_response,
                           &handle>};
}

}  // namespace samsa::server::handlers
