#pragma once
// The figures of this broker's partition logs, for /metrics and the admin
// API: asked of each shard on its own reactor (a log belongs to its shard)
// from an HTTP thread, which waits for the answers.
#include <chrono>
#include <cstdint>
#include <map>

#include "storage/topic_partition.h"

namespace samsa::cluster {
class replica_manager;
}
namespace samsa::metadata {
class metadata_image;
}

namespace samsa::server::http {

struct partition_figures {
    int64_t size_bytes = 0;
    int64_t log_start_offset = 0;
    int64_t log_end_offset = 0;
    int64_t high_watermark = 0;
    bool leader = false;
    // Produce requests (acks=all) waiting for this partition's ISR.
    int64_t delayed_produces = 0;
};

using figures_by_partition = std::map<storage::topic_partition, partition_figures>;

// Off the reactors only. A shard that does not answer within `patience`
// (a stalled reactor) leaves its partitions out rather than hold the caller.
figures_by_partition gather_partition_figures(cluster::replica_manager& replicas,
                                              const metadata::metadata_image& image,
                                              std::chrono::milliseconds patience);

}  // namespace samsa::server::http
