#include "server/handlers/alter_configs.h"

#include "common/error.h"
#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "server/authorization.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::alter_configs_request;
using protocol::alter_configs_response;

asio::awaitable<alter_configs_response> handle(request_context& ctx, alter_configs_request& req) {
    co_return co_await forward_authorized(ctx, req, &alter_configs_request::resources,
                                          config_alteration_refusal(ctx));
}

}  // namespace

api_handler alter_configs_handler() {
    return {alter_configs_request::api_key, 0, alter_configs_request::max_version,
            &typed_handler<alter_configs_request, alter_configs_response, &handle>};
}

}  // namespace samsa::server::handlers
