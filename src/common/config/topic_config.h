#pragma once
// Topic-level configs: Kafka's topic config names, types, defaults and validators,
// each with the broker key it falls back to (Kafka's ServerTopicConfigSynonyms),
// and the resolution of a topic's effective config from its own overrides and the
// broker's config_set, with each value's DescribeConfigs source and synonyms.
//
// Precedence for a topic key: the topic's override (DYNAMIC_TOPIC_CONFIG), then the
// broker synonyms in the broker's layers (DYNAMIC_BROKER_CONFIG,
// DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG), time-unit
// synonyms in their order (retention.ms ← log.retention.ms > .minutes > .hours).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/config_def.h"
#include "common/config/config_set.h"
#include "common/result.h"

namespace samsa::config {

const config_def& topic_config_def();

// The broker key a topic key falls back to (its highest-priority synonym), e.g.
// "segment.ms" → "log.roll.ms"; nullopt for keys without one
// (leader/follower.replication.throttled.replicas).
std::optional<std::string> topic_broker_synonym(std::string_view topic_key);

enum class message_timestamp_type : uint8_t { create_time, log_append_time };

// A topic's effective config (Kafka's LogConfig), every value resolved.
struct topic_config {
    std::vector<std::string> cleanup_policy;
    bool compact = false;  // "compact" in cleanup_policy
    bool delete_ = false;  // "delete" in cleanup_policy
    std::string compression_type;
    int32_t compression_gzip_level = 0;
    int32_t compression_lz4_level = 0;
    int32_t compression_zstd_level = 0;
    int64_t delete_retention_ms = 0;
    int64_t file_delete_delay_ms = 0;
    int64_t flush_messages = 0;
    int64_t flush_ms = 0;
    std::vector<std::string> follower_replication_throttled_replicas;
    int32_t index_interval_bytes = 0;
    std::vector<std::string> leader_replication_throttled_replicas;
    int64_t max_compaction_lag_ms = 0;
    int32_t max_message_bytes = 0;
    bool message_downconversion_enable = false;
    message_timestamp_type timestamp_type = message_timestamp_type::create_time;
    // before/after.max.ms with the deprecated difference.max.ms fallback applied.
    int64_t message_timestamp_before_max_ms = 0;
    int64_t message_timestamp_after_max_ms = 0;
    int64_t message_timestamp_difference_max_ms = 0;
    double min_cleanable_dirty_ratio = 0;
    int64_t min_compaction_lag_ms = 0;
    int32_t min_insync_replicas = 0;
    bool preallocate = false;
    int64_t retention_bytes = 0;
    int64_t retention_ms = 0;  // -1: no time limit
    int32_t segment_bytes = 0;
    int32_t segment_index_bytes = 0;
    int64_t segment_jitter_ms = 0;
    int64_t segment_ms = 0;
    bool unclean_leader_election_enable = false;
};

// One key of a topic's DescribeConfigs answer.
struct topic_config_entry {
    std::string name;
    std::optional<std::string> value;  // Kafka's string form; nullopt if sensitive
    config_source source = config_source::default_config;
    bool read_only = false;
    bool sensitive = false;
    config_type type = config_type::string;
    std::string documentation;
    // Highest priority first; the first is where the value came from. Empty when the
    // value is the topic default with no broker synonym.
    std::vector<config_synonym> synonyms;
};

struct resolved_topic_config {
    topic_config config;
    std::vector<topic_config_entry> entries;  // sorted by name

    const topic_config_entry* find(std::string_view name) const;
};

// Validates topic overrides as CreateTopics / AlterConfigs do: unknown names
// ("Unknown topic config name: x") and invalid values are INVALID_CONFIG errors,
// as is min.compaction.lag.ms > max.compaction.lag.ms.
status validate_topic_overrides(const std::map<std::string, std::string>& overrides);

// The effective config of a topic with `overrides` on a broker configured as
// `broker` (a config_set of broker_config_def()).
result<resolved_topic_config> resolve_topic_config(
    const std::map<std::string, std::string>& overrides, const config_set& broker);

}  // namespace samsa::config
