#pragma once
// controller.quorum.voters: the static Raft voter set, `{id}@{host}:{port}` entries
// separated by commas (e.g. `1@localhost:9093,2@[::1]:9093`), as Kafka's
// QuorumConfig.parseVoterConnections reads it.
#include <cstdint>
#include <string>
#include <vector>

#include "common/config/config_value.h"
#include "common/result.h"

namespace samsa::config {

struct quorum_voter {
    int32_t id = -1;
    std::string host;  // IPv6 without brackets
    uint16_t port = 0;
};

// Errors name the entry and the expected form; ids must be >= 0 and distinct.
result<std::vector<quorum_voter>> parse_quorum_voters(const list_value& entries);

}  // namespace samsa::config
