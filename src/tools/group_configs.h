#pragma once
// `samsa configs --entity-type groups`: kafka-configs.sh for a group's
// configs (KIP-848's GroupConfig, ConfigResource type GROUP), through raw
// DescribeConfigs and IncrementalAlterConfigs calls (librdkafka has no GROUP
// config resource).
//
//   --describe --entity-type groups [--entity-name g] [--all]
//       Dynamic configs for group g are:
//         consumer.session.timeout.ms=50000 sensitive=false
//           synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=50000}
//   --alter --entity-type groups --entity-name g
//       --add-config consumer.heartbeat.interval.ms=6000 --delete-config ...
#include <optional>
#include <string>
#include <vector>

#include "tools/client_options.h"

namespace samsa::tools {

// Without a name, every group the cluster lists (as kafka-configs.sh lists
// the consumer groups).
int describe_group_configs(const client_options& opts, const std::optional<std::string>& group,
                           bool all);
// A config to delete that the group does not set fails the command with
// Kafka's "Invalid config(s): x", before anything is changed.
int alter_group_configs(const client_options& opts, const std::string& group,
                        const property_list& sets, const std::vector<std::string>& deletes);

}  // namespace samsa::tools
