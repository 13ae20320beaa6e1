#include "server/handlers/broker_logger_configs.h"

#include <fmt/format.h>

#include <set>

#include "common/logging/loggers.h"

namespace samsa::server::handlers {

namespace {

// Kafka's AlterConfigOp.OpType ids.
constexpr int8_t op_set = 0;
constexpr int8_t op_delete = 1;
constexpr int8_t op_append = 2;
constexpr int8_t op_subtract = 3;

status check_broker_id(const request_context& ctx, std::string_view name) {
    if (name.empty()) {
        return error(error_code::invalid_request, "Broker id must not be empty");
    }
    const std::string self = std::to_string(ctx.broker->settings.node_id);
    if (name != self) {
        return error(error_code::invalid_request,
                     fmt::format("Unexpected broker id, expected {}, but received {}", self, name));
    }
    return {};
}

status check_operation(const logger_alteration::alterable_config& c) {
    switch (c.config_operation) {
        case op_set: {
            if (!logging::exists(c.name)) {
                return error(error_code::invalid_config,
                             fmt::format("Logger {} does not exist!", c.name));
            }
            if (!c.value) {
                return error(error_code::invalid_request,
                             fmt::format("Null value not supported for : SET:{}", c.name));
            }
            if (!logging::parse_level(*c.value)) {
                return error(
                    error_code::invalid_config,
                    fmt::format("Cannot set the log level of {} to {} as it is not a "
                                "supported log level. Valid log levels are {}",
                                c.name, *c.value, fmt::join(logging::valid_levels(), ", ")));
            }
            return {};
        }
        case op_delete:
            if (!logging::exists(c.name)) {
                return error(error_code::invalid_config,
                             fmt::format("Logger {} does not exist!", c.name));
            }
            if (c.name == logging::root_name) {
                return error(error_code::invalid_request,
                             fmt::format("Removing the log level of the {} logger is not allowed",
                                         logging::root_name));
            }
            return {};
        case op_append:
        case op_subtract:
            return error(error_code::invalid_request,
                         fmt::format("{} operation is not allowed for the BROKER_LOGGER resource",
                                     c.config_operation == op_append ? "APPEND" : "SUBTRACT"));
        default:
            return error(error_code::invalid_request,
                         fmt::format("Unknown operation type {} is not allowed for the "
                                     "BROKER_LOGGER resource",
                                     c.config_operation));
    }
}

}  // namespace

result<std::vector<metadata::config_entry>> describe_broker_loggers(
    const request_context& ctx, std::string_view resource_name) {
    if (auto st = check_broker_id(ctx, resource_name); !st) {
        return st.err();
    }
    std::vector<metadata::config_entry> out;
    for (auto& l : logging::levels()) {
        auto& e = out.emplace_back();
        e.name = std::move(l.name);
        e.value = std::move(l.level);
        e.source = config::config_source::dynamic_broker_logger_config;
        e.read_only = false;
        e.type = config::config_type::string;
    }
    return out;
}

status alter_broker_loggers(const request_context& ctx, const logger_alteration& resource,
                            bool validate_only) {
    if (auto st = check_broker_id(ctx, resource.resource_name); !st) {
        return st;
    }
    std::set<std::string_view> seen, duplicates;
    for (const auto& c : resource.configs) {
        if (!seen.insert(c.name).second) {
            duplicates.insert(c.name);
        }
    }
    if (!duplicates.empty()) {
        return error(
            error_code::invalid_request,
            fmt::format("Error due to duplicate config keys : {}", fmt::join(duplicates, ",")));
    }
    for (const auto& c : resource.configs) {
        if (auto st = check_operation(c); !st) {
            return st;
        }
    }
    if (validate_only) {
        return {};
    }
    for (const auto& c : resource.configs) {
        auto st = c.config_operation == op_set ? logging::set_level(c.name, *c.value)
                                               : logging::unset_level(c.name);
        if (!st) {
            return st;
        }
        // At WARN, so that the line shows whichever way the level went.
        logging::server().warn("event=log_level_changed target={} new_level={} principal={}",
                               c.name, c.config_operation == op_set ? *c.value : "root's",
                               ctx.principal);
    }
    return {};
}

}  // namespace samsa::server::handlers
