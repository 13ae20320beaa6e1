#pragma once
// One resource's config changes as a raw IncrementalAlterConfigs (KIP-339):
// what the verbs send where the librdkafka this links has no API (replication
// throttles) or cannot address the resource (the cluster-wide broker default,
// a broker resource named "").
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "net/blocking_call.h"

namespace samsa::tools {

// ConfigResource.Type.
inline constexpr int8_t config_resource_topic = 2;
inline constexpr int8_t config_resource_broker = 4;
inline constexpr int8_t config_resource_group = 32;  // KIP-848

// Each config SET to its value, or DELETEd (nullopt).
using config_ops = std::vector<std::pair<std::string, std::optional<std::string>>>;

// The changes to resource (type, name) on the broker `to` reaches; the
// resource's error, with the broker's message, when refused.
status incremental_alter_config(const net::blocking_target& to, int8_t type,
                                const std::string& name, const config_ops& ops);

// --add-config's pairs SET and --delete-config's names DELETEd.
config_ops config_ops_of(const std::vector<std::pair<std::string, std::string>>& sets,
                         const std::vector<std::string>& deletes);

}  // namespace samsa::tools
