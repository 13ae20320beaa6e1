#pragma once
// A JSON file a verb reads (kafka-reassign-partitions.sh's and
// kafka-leader-election.sh's plans): its text parsed, or why it could not be
// read. A text that is not JSON parses to a discarded value; the caller says
// what shape it expected.
#include <nlohmann/json.hpp>
#include <string>

#include "common/result.h"

namespace samsa::tools {

result<nlohmann::json> read_json_file(const std::string& path);

}  // namespace samsa::tools
