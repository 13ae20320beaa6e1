#include "tools/incremental_alter_configs.h"

#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

constexpr int8_t op_set = 0;
constexpr int8_t op_delete = 1;

}  // namespace

status incremental_alter_config(const net::blocking_target& to, int8_t type,
                                const std::string& name, const config_ops& ops) {
    protocol::incremental_alter_configs_request req;
    auto& r = req.resources.emplace_back();
    r.resource_type = type;
    r.resource_name = name;
    for (const auto& [key, value] : ops) {
        auto& c = r.configs.emplace_back();
        c.name = key;
        c.config_operation = value ? op_set : op_delete;
        c.value = value;
    }
    auto resp = net::call_blocking<protocol::incremental_alter_configs_response>(to, req, 1);
    if (!resp) {
        return resp.err();
    }
    for (const auto& res : resp->responses) {
        if (res.error_code != 0) {
            return error(error_code(res.error_code), message_of(res.error_code, res.error_message));
        }
    }
    return {};
}

config_ops config_ops_of(const std::vector<std::pair<std::string, std::string>>& sets,
                         const std::vector<std::string>& deletes) {
    config_ops ops;
    for (const auto& [key, value] : sets) {
        ops.emplace_back(key, value);
    }
    for (const auto& key : deletes) {
        ops.emplace_back(key, std::nullopt);
    }
    return ops;
}

}  // namespace samsa::tools
