#include "server/handlers/incremental_alter_configs.h"

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "metadata/metadata_record_serde.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "server/authorization.h"
#include "server/handlers/broker_logger_configs.h"
#include "server/handlers/forward_to_controller.h"

namespace samsa::server::handlers {

namespace {

using protocol::incremental_alter_configs_request;
using protocol::incremental_alter_configs_response;

using resource_response = incremental_alter_configs_response::alter_configs_resource_response;

// BROKER_LOGGER resources are this broker's own (KIP-412): answered here and
// never forwarded; the controller gets the rest.
std::vector<resource_response> alter_loggers_here(request_context& ctx,
                                                  incremental_alter_configs_request& req) {
    std::vector<resource_response> out;
    auto refusal = config_alteration_refusal(ctx);
    auto& all = req.resources;
    auto mine = std::stable_partition(all.begin(), all.end(), [](const auto& r) {
        return r.resource_type != int8_t(metadata::config_resource_type::broker_logger);
    });
    for (auto it = mine; it != all.end(); ++it) {
        auto& r = out.emplace_back();
        r.resource_type = it->resource_type;
        r.resource_name = it->resource_name;
        r.error_message = std::nullopt;
        if (auto why = refusal(std::as_const(*it)); why != error_code::none) {
            r.error_code = to_wire(why);
            continue;
        }
        if (auto st = alter_broker_loggers(ctx, *it, req.validate_only); !st) {
            r.error_code = to_wire(st.err().code);
            r.error_message = st.err().message;
        }
    }
    all.erase(mine, all.end());
    return out;
}

asio::awaitable<incremental_alter_configs_response> handle(request_context& ctx,
                                                           incremental_alter_configs_request& req) {
    auto local = alter_loggers_here(ctx, req);
    auto answer = co_await forward_authorized(
        ctx, req, &incremental_alter_configs_request::resources, config_alteration_refusal(ctx));
    for (auto& r : local) {
        answer.responses.push_back(std::move(r));
    }
    co_return answer;
}

}  // namespace

api_handler incremental_alter_configs_handler() {
    return {incremental_alter_configs_request::api_key, 0,
            incremental_alter_configs_request::max_version,
            &typed_handler<incremental_alter_configs_request, incremental_alter_configs_response,
                           &handle>};
}

}  // namespace samsa::server::handlers
