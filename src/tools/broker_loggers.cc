#include "tools/broker_loggers.h"

#include <cstdio>

#include "common/error.h"
#include "net/blocking_call.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "tools/incremental_alter_configs.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

constexpr int8_t k_broker_logger = 8;  // Kafka's ConfigResource.Type.BROKER_LOGGER

// The broker's own address: its loggers are changed on it, not through the
// controller.
result<net::blocking_target> broker_target(const client_options& opts,
                                           const std::string& broker_id) {
    auto targets = broker_targets(opts, "samsa-configs");
    if (!targets) {
        return targets.err();
    }
    for (const auto& [id, to] : *targets) {
        if (std::to_string(id) == broker_id) {
            return to;
        }
    }
    return error(error_code::broker_not_available,
                 "broker " + broker_id + " is not in the cluster's metadata");
}

}  // namespace

int describe_broker_loggers(const client_options& opts, const std::string& broker_id) {
    auto to = broker_target(opts, broker_id);
    if (!to) {
        return fail(to.err());
    }
    protocol::describe_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = k_broker_logger;
    r.resource_name = broker_id;
    r.configuration_keys = std::nullopt;
    auto resp = net::call_blocking<protocol::describe_configs_response>(*to, req, 4);
    if (!resp) {
        return fail(resp.err());
    }
    for (const auto& res : resp->results) {
        if (res.error_code != 0) {
            return fail(message_of(res.error_code, res.error_message));
        }
        std::printf("All configs for broker-logger %s are:\n", broker_id.c_str());
        for (const auto& c : res.configs) {
            std::printf("  %s=%s sensitive=%s synonyms={}\n", c.name.c_str(),
                        c.value ? c.value->c_str() : "null", c.is_sensitive ? "true" : "false");
        }
    }
    return 0;
}

int alter_broker_loggers(const client_options& opts, const std::string& broker_id,
                         const property_list& sets, const std::vector<std::string>& deletes) {
    auto to = broker_target(opts, broker_id);
    if (!to) {
        return fail(to.err());
    }
    if (auto st =
            incremental_alter_config(*to, k_broker_logger, broker_id, config_ops_of(sets, deletes));
        !st) {
        return fail(st.err());
    }
    std::printf("Completed updating config for broker-logger %s.\n", broker_id.c_str());
    return 0;
}

}  // namespace samsa::tools
