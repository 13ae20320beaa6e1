#pragma once
// A consumer group of the KIP-848 protocol as ConsumerGroupDescribe (API 69)
// tells it, at the group's coordinator (FindCoordinator first), in the
// terms the `groups` verb prints: Kafka's admin client asks this first and
// falls back to DescribeGroups for a classic group, and so does the verb.
#include <optional>
#include <string>

#include "common/result.h"
#include "tools/client_options.h"
#include "tools/group_admin.h"

namespace samsa::tools {

// nullopt when the group is not a consumer group (classic, unknown, or a
// broker without the API), or when the client config is not PLAINTEXT (the
// raw call speaks only that; a note on stderr says so).
result<std::optional<group_description>> describe_consumer_group(const client_options& o,
                                                                 const std::string& group);

}  // namespace samsa::tools
