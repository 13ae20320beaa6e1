#pragma once
// `groups --list --type`: ListGroups v5 (KIP-848's group types) at every
// broker, as kafka-consumer-groups.sh --list --type asks; librdkafka's
// ListConsumerGroups does not carry the types.
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "tools/client_options.h"

namespace samsa::tools {

struct typed_group_listing {
    std::string group_id;
    std::string type;   // Kafka's GroupType names: "Classic", "Consumer"
    std::string state;  // Stable, Empty, Reconciling, ...
};

// Empty `types` / `states`: any. Types and states are lower-case.
result<std::vector<typed_group_listing>> list_groups_with_types(
    const client_options& o, const std::set<std::string>& types,
    const std::set<std::string>& states);

}  // namespace samsa::tools
