#pragma once
// The broker's named loggers (docs/logging.md): one per component, named as
// Kafka's log4j loggers are, so that operators find the same names in
// DescribeConfigs for a BROKER_LOGGER resource (KIP-412) and change them the
// same way (IncrementalAlterConfigs, `samsa configs --entity-type
// broker-loggers`). Every logger writes to the same sinks (log_output.h);
// only its level is its own.
//
// A logger without a level of its own follows the root logger's, as a log4j
// logger with no level inherits its parent's. Levels are atomics inside
// spdlog, so any thread may change them while others log.
//
//   logging::storage().info("event=log_recovered partition={}", tp);
#include <spdlog/spdlog.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace samsa::logging {

// Kafka's name for the root logger.
inline constexpr std::string_view root_name = "root";

spdlog::logger& root();
spdlog::logger& server();        // kafka.server: start, stop, lifecycle
spdlog::logger& network();       // kafka.network: listeners and connections
spdlog::logger& requests();      // kafka.request.logger: slow requests
spdlog::logger& storage();       // kafka.log: segments, recovery, retention
spdlog::logger& cleaner();       // kafka.log.LogCleaner
spdlog::logger& state_change();  // state.change.logger: leaders, ISR, truncation
spdlog::logger& replication();   // kafka.server.ReplicaManager
spdlog::logger& groups();        // kafka.coordinator.group
spdlog::logger& transactions();  // kafka.coordinator.transaction
spdlog::logger& raft();          // org.apache.kafka.raft
spdlog::logger& controller();    // org.apache.kafka.controller
spdlog::logger& metadata();      // kafka.server.metadata
spdlog::logger& security();      // kafka.authorizer.logger: ACL denials, SASL
spdlog::logger& metrics();       // kafka.metrics: the metrics listener

// The log4j level names Kafka accepts for a logger (LogLevelConfig).
const std::vector<std::string>& valid_levels();
// "INFO" → spdlog's info; FATAL maps to critical. nullopt: not a level.
std::optional<spdlog::level::level_enum> parse_level(std::string_view name);
// spdlog's level → the log4j name ("WARN", "FATAL", …).
std::string level_name(spdlog::level::level_enum level);

struct logger_level {
    std::string name;
    std::string level;  // effective: its own, or the root's
};
// Every logger, root first, the others by name.
std::vector<logger_level> levels();
bool exists(std::string_view name);

// Sets `name`'s own level (the root's: every logger that has none follows).
// Errors are Kafka's: INVALID_CONFIG for an unknown logger or level.
status set_level(std::string_view name, std::string_view level);
// Drops `name`'s own level so that it follows the root again; the root's
// cannot be dropped (INVALID_REQUEST, as Kafka answers).
status unset_level(std::string_view name);
// log.level.overrides: "logger:LEVEL,logger:LEVEL" (the layout of Kafka's
// max.connections.per.ip.overrides); every logger known, every level valid.
result<std::vector<std::pair<std::string, std::string>>> parse_level_overrides(
    std::string_view text);

// Back to the start: root at INFO, no logger with a level of its own (tests).
void reset_levels();

}  // namespace samsa::logging
