#pragma once
// Per-group dynamic configs (KIP-848's GroupConfig): ConfigResource type
// GROUP, kept as ConfigRecords of that type in the metadata log. A consumer
// group's session timeout and heartbeat interval, each falling back to the
// broker's group.consumer.* default when the group does not set it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/config/config_def.h"
#include "common/config/config_set.h"
#include "common/config/topic_config.h"
#include "common/result.h"

namespace samsa::config {

const config_def& group_config_def();

// Kafka's GroupConfig.validate on a group's whole set of overrides: known
// names ("Unknown group config name: x"; share groups' share.* keys are
// refused as such, Samsa serves no share groups), values of type INT at least
// 1, within the broker's group.consumer.min/max.* bounds, and the session
// timeout above the heartbeat interval, the broker's defaults standing in for
// what the group does not set. Errors are INVALID_CONFIG.
status validate_group_configs(const std::map<std::string, std::string>& overrides,
                              const config_set& broker);

struct group_config_values {
    int32_t consumer_session_timeout_ms = 0;
    int32_t consumer_heartbeat_interval_ms = 0;
};

// What a group runs with: each override (validated when it was set), else
// the default given.
group_config_values resolve_group_config(const std::map<std::string, std::string>& overrides,
                                         const group_config_values& defaults);

// DescribeConfigs of a group (Kafka's ConfigHelper): every key, from
// GROUP_CONFIG when the group sets it, else DEFAULT_CONFIG with the broker's
// value; never read-only.
std::vector<topic_config_entry> describe_group_configs(
    const std::map<std::string, std::string>& overrides, const config_set& broker);

}  // namespace samsa::config
