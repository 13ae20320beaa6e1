#pragma once
// The broker settings the group coordinator follows, taken from the broker
// config once at start (all of them are read-only in Kafka too).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/config/broker_config.h"

namespace samsa::coordinator {

struct group_config {
    int32_t offsets_topic_num_partitions = 50;
    // Extra wait before the first generation of a new group, so that members
    // starting together land in one rebalance (KIP-134).
    int32_t initial_rebalance_delay_ms = 3000;
    int32_t min_session_timeout_ms = 6000;
    int32_t max_session_timeout_ms = 1800000;
    int32_t max_size = std::numeric_limits<int32_t>::max();
    int64_t offsets_retention_ms = 7LL * 24 * 60 * 60 * 1000;
    int64_t offsets_retention_check_interval_ms = 600000;
    int32_t offset_metadata_max_bytes = 4096;
    // offsets.commit.timeout.ms: how long a commit waits for the offsets
    // partition's ISR.
    int32_t offset_commit_timeout_ms = 5000;
    // KIP-848 consumer groups: whether ConsumerGroupHeartbeat is served
    // (group.coordinator.rebalance.protocols has "consumer"), the members'
    // session and heartbeat interval, the group size, the assignors (the
    // first is the default).
    bool consumer_protocol = true;
    int32_t consumer_session_timeout_ms = 45000;
    int32_t consumer_heartbeat_interval_ms = 5000;
    int32_t consumer_max_size = std::numeric_limits<int32_t>::max();
    std::vector<std::string> consumer_assignors = {"uniform", "range"};
    // group.consumer.migration.policy: whether a classic group with members
    // converts to a consumer group (upgrade) and back (downgrade) online.
    bool consumer_migration_upgrade = true;
    bool consumer_migration_downgrade = true;
    // Bytes read from the log per loading step; the reactor serves other
    // work between steps.
    int64_t load_chunk_bytes = 1 << 20;

    static group_config from(const config::broker_config& cfg) {
        group_config c;
        c.offsets_topic_num_partitions = cfg.offsets_topic_num_partitions;
        c.initial_rebalance_delay_ms = cfg.group_initial_rebalance_delay_ms;
        c.min_session_timeout_ms = cfg.group_min_session_timeout_ms;
        c.max_session_timeout_ms = cfg.group_max_session_timeout_ms;
        c.max_size = cfg.group_max_size;
        c.offsets_retention_ms = int64_t(cfg.offsets_retention_minutes) * 60 * 1000;
        c.offsets_retention_check_interval_ms = cfg.offsets_retention_check_interval_ms;
        c.offset_commit_timeout_ms = cfg.offsets_commit_timeout_ms;
        c.offset_metadata_max_bytes = cfg.offset_metadata_max_bytes;
        const auto& protocols = cfg.group_coordinator_rebalance_protocols;
        c.consumer_protocol =
            std::find(protocols.begin(), protocols.end(), "consumer") != protocols.end();
        c.consumer_session_timeout_ms = cfg.group_consumer_session_timeout_ms;
        c.consumer_heartbeat_interval_ms = cfg.group_consumer_heartbeat_interval_ms;
        c.consumer_max_size = cfg.group_consumer_max_size;
        const auto& policy = cfg.group_consumer_migration_policy;
        if (!policy.empty()) {
            c.consumer_migration_upgrade = policy == "bidirectional" || policy == "upgrade";
            c.consumer_migration_downgrade = policy == "bidirectional" || policy == "downgrade";
        }
        if (!cfg.group_consumer_assignors.empty()) {
            c.consumer_assignors = cfg.group_consumer_assignors;
        }
        return c;
    }
};

// Kafka's GroupCoordinator.NewMemberJoinTimeoutMs (KIP-394): how long a new
// member may wait for its join response before it is dropped.
inline constexpr int32_t new_member_join_timeout_ms = 5 * 60 * 1000;

// The topic holding groups and offsets.
inline constexpr const char* offsets_topic = "__consumer_offsets";

}  // namespace samsa::coordinator
