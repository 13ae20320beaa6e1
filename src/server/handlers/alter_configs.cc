#include "server/handlers/alter_configs.h"

#include "common/error.h"
#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "server/quorum/controller_channel.h"

namespace samsa::server::handlers {

namespace {

using protocol::alter_configs_request;
using protocol::alter_configs_response;

asio::awaitable<alter_configs_response> handle(request_context& ctx, alter_configs_request& req) {
    if (!ctx.broker->controller) {
        alter_configs_response resp;
        for (const auto& r : req.resources) {
            auto& out = resp.responses.emplace_back();
            out.resource_type = r.resource_type;
            out.resource_name = r.resource_name;
            out.error_code = to_wire(error_code::not_controller);
            out.error_message = std::nullopt;
        }
        co_return resp;
    }
    co_return co_await ctx.broker->controller->alter_configs(std::move(req));
}

}  // namespace

api_handler alter_configs_handler() {
    return {alter_configs_request::api_key, 0, alter_configs_request::max_version,
            &typed_handler<alter_configs_request, alter_configs_response, &handle>};
}

}  // namespace samsa::server::handlers
