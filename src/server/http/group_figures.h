#pragma once
// The consumer groups this broker coordinates, with each committed offset
// and its lag behind the partition's high watermark, for /metrics and the
// admin API. Lag is known where this broker holds the partition's leader
// log (in a one-node cluster: everywhere); elsewhere it is left out, as the
// figure would be another broker's.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/http/partition_figures.h"

namespace samsa::server {
struct broker_context;
}

namespace samsa::server::http {

struct group_partition_offset {
    storage::topic_partition tp;
    int64_t committed = -1;
    std::optional<int64_t> lag;  // high watermark - committed, where known
};

struct group_figures {
    std::string group_id;
    std::string protocol_type;
    std::string state;
    std::vector<group_partition_offset> offsets;
};

// Off the reactors only: runs on a reactor and waits at most `patience`
// (nothing when the groups do not answer in time).
std::vector<group_figures> gather_group_figures(const broker_context& broker,
                                                const figures_by_partition& logs,
                                                std::chrono::milliseconds patience);

}  // namespace samsa::server::http
