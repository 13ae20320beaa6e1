#pragma once
// The BROKER_LOGGER config resource (KIP-412): a broker's loggers and their
// levels, read with DescribeConfigs and changed with IncrementalAlterConfigs.
// Unlike every other config it is the broker's own, held in memory and never
// forwarded to the controller: a restart goes back to log.level and
// log.level.overrides, as Kafka's log4j levels do.
#include <string_view>
#include <vector>

#include "common/result.h"
#include "metadata/config_view.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "server/request_context.h"

namespace samsa::server::handlers {

using logger_alteration = protocol::incremental_alter_configs_request::alter_configs_resource;

// Every logger and its effective level, as DYNAMIC_BROKER_LOGGER_CONFIG
// entries; `resource_name` must be this broker's id.
result<std::vector<metadata::config_entry>> describe_broker_loggers(const request_context& ctx,
                                                                    std::string_view resource_name);

// Checks every operation first and changes levels only when all are valid
// and the request is not validate_only. Errors as Kafka's ConfigAdminManager
// gives them.
status alter_broker_loggers(const request_context& ctx, const logger_alteration& resource,
                            bool validate_only);

}  // namespace samsa::server::handlers
