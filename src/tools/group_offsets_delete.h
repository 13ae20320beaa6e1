#pragma once
// `samsa groups --delete-offsets --group G --topic T[:P,P]`: OffsetDelete, as
// kafka-consumer-groups.sh --delete-offsets does it and prints it.
#include <string>
#include <vector>

#include "tools/kafka_client.h"

namespace samsa::tools {

// `topics`: "t" (every partition of t) or "t:0,1". Exit code: 0 when every
// partition's offset was deleted.
int run_delete_group_offsets(kafka_client& client, const std::string& group,
                             const std::vector<std::string>& topics);

}  // namespace samsa::tools
