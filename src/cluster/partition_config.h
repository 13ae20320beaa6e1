#pragma once
// What a partition replica needs from its topic's effective config: the log's
// settings (storage/log_config.h) and the produce-time validation rules.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/config/topic_config.h"
#include "record/batch_validator.h"
#include "record/compression.h"
#include "storage/log_config.h"

namespace samsa::cluster {

struct partition_config {
    storage::log_config log;
    bool compacted = false;
    record::timestamp_type message_timestamp_type = record::timestamp_type::create_time;
    record::timestamp_bounds timestamps;
    int32_t min_insync_replicas = 1;
    // compression.type: nullopt for "producer" (batches are kept as sent),
    // else the codec every client batch is stored with ("uncompressed":
    // none), at the compression.<codec>.level for it (KIP-390).
    std::optional<record::compression> compression;
    std::optional<int> compression_level;
    // producer.id.expiration.ms (a broker setting, not a topic's).
    int64_t producer_id_expiration_ms = 86400000;
    // leader/follower.replication.throttled.replicas: "partition:broker"
    // pairs or "*" (cluster/replication_quota.h).
    std::vector<std::string> leader_throttled_replicas;
    std::vector<std::string> follower_throttled_replicas;
};

partition_config make_partition_config(const config::topic_config& tc);

}  // namespace samsa::cluster
