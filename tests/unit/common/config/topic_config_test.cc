#include "common/config/topic_config.h"

#include <gtest/gtest.h>

#include <limits>

#include "common/config/broker_config.h"

namespace samsa::config {
namespace {

using kv = std::map<std::string, std::string>;

config_set broker(const kv& file = {}, const kv& dynamic_default = {},
                  const kv& dynamic_broker = {}) {
    config_set s(broker_config_def());
    EXPECT_TRUE(s.set_layer(config_layer::static_file, file).ok());
    EXPECT_TRUE(s.set_layer(config_layer::dynamic_cluster_default, dynamic_default).ok());
    EXPECT_TRUE(s.set_layer(config_layer::dynamic_broker, dynamic_broker).ok());
    return s;
}

resolved_topic_config resolve(const kv& overrides, const config_set& b) {
    auto r = resolve_topic_config(overrides, b);
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.err().message);
    return r ? *r : resolved_topic_config{};
}

const topic_config_entry& entry(const resolved_topic_config& r, std::string_view name) {
    const topic_config_entry* e = r.find(name);
    EXPECT_NE(e, nullptr) << name;
    static const topic_config_entry none;
    return e ? *e : none;
}

TEST(topic_config_def, every_default_parses_and_validates) {
    for (const auto& p : topic_config_def().check_definitions()) {
        ADD_FAILURE() << p;
    }
}

TEST(topic_config_def, broker_synonyms_exist_and_have_compatible_types) {
    for (const auto& k : topic_config_def().keys()) {
        auto syn = topic_broker_synonym(k.name);
        if (!syn) {
            continue;
        }
        const config_key* b = broker_config_def().find(*syn);
        ASSERT_NE(b, nullptr) << k.name << " -> " << *syn;
        bool both_integers = (k.type == config_type::int32 || k.type == config_type::int64) &&
                             (b->type == config_type::int32 || b->type == config_type::int64);
        EXPECT_TRUE(both_integers || k.type == b->type) << k.name;
    }
}

TEST(topic_config_def, kafka_synonym_names) {
    EXPECT_EQ(topic_broker_synonym("cleanup.policy"), "log.cleanup.policy");
    EXPECT_EQ(topic_broker_synonym("retention.ms"), "log.retention.ms");
    EXPECT_EQ(topic_broker_synonym("segment.bytes"), "log.segment.bytes");
    EXPECT_EQ(topic_broker_synonym("segment.ms"), "log.roll.ms");
    EXPECT_EQ(topic_broker_synonym("segment.jitter.ms"), "log.roll.jitter.ms");
    EXPECT_EQ(topic_broker_synonym("segment.index.bytes"), "log.index.size.max.bytes");
    EXPECT_EQ(topic_broker_synonym("index.interval.bytes"), "log.index.interval.bytes");
    EXPECT_EQ(topic_broker_synonym("max.message.bytes"), "message.max.bytes");
    EXPECT_EQ(topic_broker_synonym("file.delete.delay.ms"), "log.segment.delete.delay.ms");
    EXPECT_EQ(topic_broker_synonym("flush.messages"), "log.flush.interval.messages");
    EXPECT_EQ(topic_broker_synonym("flush.ms"), "log.flush.interval.ms");
    EXPECT_EQ(topic_broker_synonym("delete.retention.ms"), "log.cleaner.delete.retention.ms");
    EXPECT_EQ(topic_broker_synonym("min.cleanable.dirty.ratio"), "log.cleaner.min.cleanable.ratio");
    EXPECT_EQ(topic_broker_synonym("min.insync.replicas"), "min.insync.replicas");
    EXPECT_EQ(topic_broker_synonym("message.timestamp.difference.max.ms"),
              "log.message.timestamp.difference.max.ms");
    EXPECT_EQ(topic_broker_synonym("message.downconversion.enable"),
              "log.message.downconversion.enable");
    EXPECT_FALSE(topic_broker_synonym("leader.replication.throttled.replicas"));
    EXPECT_FALSE(topic_broker_synonym("no.such.config"));
}

TEST(topic_config, defaults_come_from_broker_defaults) {
    auto r = resolve({}, broker());
    const auto& c = r.config;
    EXPECT_EQ(c.cleanup_policy, (list_value{"delete"}));
    EXPECT_TRUE(c.delete_);
    EXPECT_FALSE(c.compact);
    EXPECT_EQ(c.retention_ms, 604800000);
    EXPECT_EQ(c.retention_bytes, -1);
    EXPECT_EQ(c.segment_bytes, 1073741824);
    EXPECT_EQ(c.segment_ms, 604800000);
    EXPECT_EQ(c.segment_jitter_ms, 0);
    EXPECT_EQ(c.segment_index_bytes, 10485760);
    EXPECT_EQ(c.index_interval_bytes, 4096);
    EXPECT_EQ(c.max_message_bytes, 1048588);
    EXPECT_EQ(c.min_insync_replicas, 1);
    EXPECT_EQ(c.delete_retention_ms, 86400000);
    EXPECT_EQ(c.file_delete_delay_ms, 60000);
    EXPECT_EQ(c.flush_messages, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(c.flush_ms, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(c.compression_type, "producer");
    EXPECT_FALSE(c.unclean_leader_election_enable);
    EXPECT_EQ(c.min_compaction_lag_ms, 0);
    EXPECT_EQ(c.max_compaction_lag_ms, std::numeric_limits<int64_t>::max());
    EXPECT_DOUBLE_EQ(c.min_cleanable_dirty_ratio, 0.5);
    EXPECT_FALSE(c.preallocate);
    EXPECT_TRUE(c.message_downconversion_enable);
    EXPECT_EQ(c.timestamp_type, message_timestamp_type::create_time);
    EXPECT_TRUE(c.leader_replication_throttled_replicas.empty());

    const auto& e = entry(r, "retention.ms");
    EXPECT_EQ(e.value, "604800000");
    EXPECT_EQ(e.source, config_source::default_config);
    ASSERT_EQ(e.synonyms.size(), 1u);
    EXPECT_EQ(e.synonyms[0].name, "log.retention.hours");
    EXPECT_EQ(e.synonyms[0].value, "168");
    EXPECT_EQ(e.synonyms[0].source, config_source::default_config);
    EXPECT_EQ(entry(r, "min.cleanable.dirty.ratio").value, "0.5");
    EXPECT_EQ(entry(r, "cleanup.policy").type, config_type::list);
    EXPECT_FALSE(entry(r, "cleanup.policy").read_only);
}

TEST(topic_config, entries_are_sorted_and_complete) {
    auto r = resolve({}, broker());
    EXPECT_EQ(r.entries.size(), topic_config_def().keys().size());
    for (size_t i = 1; i < r.entries.size(); ++i) {
        EXPECT_LT(r.entries[i - 1].name, r.entries[i].name);
    }
}

TEST(topic_config, topic_override_wins_and_is_dynamic_topic_config) {
    auto r = resolve({{"retention.ms", "1000"}, {"cleanup.policy", "compact,delete"}},
                     broker({{"log.retention.hours", "24"}}));
    EXPECT_EQ(r.config.retention_ms, 1000);
    EXPECT_TRUE(r.config.compact);
    EXPECT_TRUE(r.config.delete_);
    const auto& e = entry(r, "retention.ms");
    EXPECT_EQ(e.source, config_source::dynamic_topic_config);
    ASSERT_EQ(e.synonyms.size(), 3u);
    EXPECT_EQ(e.synonyms[0].name, "retention.ms");
    EXPECT_EQ(e.synonyms[0].value, "1000");
    EXPECT_EQ(e.synonyms[0].source, config_source::dynamic_topic_config);
    EXPECT_EQ(e.synonyms[1].name, "log.retention.hours");
    EXPECT_EQ(e.synonyms[1].source, config_source::static_broker_config);
    EXPECT_EQ(e.synonyms[2].source, config_source::default_config);
    EXPECT_EQ(entry(r, "cleanup.policy").value, "compact,delete");
}

TEST(topic_config, static_broker_time_synonyms_with_precedence) {
    auto r = resolve({}, broker({{"log.retention.hours", "24"}, {"log.retention.minutes", "30"}}));
    EXPECT_EQ(r.config.retention_ms, 30 * 60000);
    const auto& e = entry(r, "retention.ms");
    EXPECT_EQ(e.value, "1800000");
    EXPECT_EQ(e.source, config_source::static_broker_config);
    ASSERT_EQ(e.synonyms.size(), 3u);
    EXPECT_EQ(e.synonyms[0].name, "log.retention.minutes");
    EXPECT_EQ(e.synonyms[1].name, "log.retention.hours");
    EXPECT_EQ(e.synonyms[1].value, "24");
    EXPECT_EQ(e.synonyms[2].name, "log.retention.hours");
    EXPECT_EQ(e.synonyms[2].value, "168");

    auto roll = resolve({}, broker({{"log.roll.hours", "1"}}));
    EXPECT_EQ(roll.config.segment_ms, 3600000);
    EXPECT_EQ(entry(roll, "segment.ms").source, config_source::static_broker_config);
}

TEST(topic_config, dynamic_broker_sources) {
    auto b = broker({{"log.segment.bytes", "2000000"}}, {{"log.segment.bytes", "3000000"}},
                    {{"log.segment.bytes", "4000000"}});
    auto r = resolve({}, b);
    EXPECT_EQ(r.config.segment_bytes, 4000000);
    const auto& e = entry(r, "segment.bytes");
    EXPECT_EQ(e.source, config_source::dynamic_broker_config);
    ASSERT_EQ(e.synonyms.size(), 4u);
    EXPECT_EQ(e.synonyms[0].source, config_source::dynamic_broker_config);
    EXPECT_EQ(e.synonyms[1].source, config_source::dynamic_default_broker_config);
    EXPECT_EQ(e.synonyms[1].value, "3000000");
    EXPECT_EQ(e.synonyms[2].source, config_source::static_broker_config);
    EXPECT_EQ(e.synonyms[3].source, config_source::default_config);

    auto cluster = resolve({}, broker({}, {{"log.retention.ms", "5000"}}));
    EXPECT_EQ(cluster.config.retention_ms, 5000);
    EXPECT_EQ(entry(cluster, "retention.ms").source, config_source::dynamic_default_broker_config);
}

TEST(topic_config, broker_defaults_flow_into_topic_values) {
    auto r = resolve({}, broker({{"message.max.bytes", "2000000"},
                                 {"log.cleanup.policy", "compact"},
                                 {"log.cleaner.min.cleanable.ratio", "0.25"},
                                 {"min.insync.replicas", "2"},
                                 {"compression.type", "zstd"},
                                 {"log.message.timestamp.type", "LogAppendTime"},
                                 {"log.flush.scheduler.interval.ms", "7000"}}));
    EXPECT_EQ(r.config.max_message_bytes, 2000000);
    EXPECT_TRUE(r.config.compact);
    EXPECT_FALSE(r.config.delete_);
    EXPECT_DOUBLE_EQ(r.config.min_cleanable_dirty_ratio, 0.25);
    EXPECT_EQ(r.config.min_insync_replicas, 2);
    EXPECT_EQ(r.config.compression_type, "zstd");
    EXPECT_EQ(r.config.timestamp_type, message_timestamp_type::log_append_time);
    EXPECT_EQ(r.config.flush_ms, 7000);
    EXPECT_EQ(entry(r, "flush.ms").synonyms.front().name, "log.flush.scheduler.interval.ms");
}

TEST(topic_config, negative_broker_retention_means_unlimited) {
    auto r = resolve({}, broker({{"log.retention.ms", "-100"}}));
    EXPECT_EQ(r.config.retention_ms, -1);
}

TEST(topic_config, broker_value_invalid_for_topic_is_an_error) {
    auto r = resolve_topic_config({}, broker({{"log.flush.interval.ms", "-5"}}));
    ASSERT_FALSE(r);
    EXPECT_NE(r.err().message.find("flush.ms"), std::string::npos) << r.err().message;
}

TEST(topic_config, timestamp_difference_fallback) {
    auto r = resolve({{"message.timestamp.difference.max.ms", "1000"}}, broker());
    EXPECT_EQ(r.config.message_timestamp_before_max_ms, 1000);
    EXPECT_EQ(r.config.message_timestamp_after_max_ms, 1000);
    auto s = resolve({{"message.timestamp.difference.max.ms", "1000"},
                      {"message.timestamp.before.max.ms", "10"}},
                     broker());
    EXPECT_EQ(s.config.message_timestamp_before_max_ms, 10);
    EXPECT_EQ(s.config.message_timestamp_after_max_ms, 1000);
}

TEST(topic_config, unknown_and_invalid_overrides_are_invalid_config) {
    auto unknown = resolve_topic_config({{"retention.hours", "1"}}, broker());
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.err().code, error_code::invalid_config);
    EXPECT_EQ(unknown.err().message, "Unknown topic config name: retention.hours");
    auto bad = validate_topic_overrides({{"cleanup.policy", "compact,shred"}});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.err().message.find("cleanup.policy"), std::string::npos);
    EXPECT_FALSE(validate_topic_overrides({{"retention.ms", "-2"}}));
    EXPECT_FALSE(validate_topic_overrides({{"segment.bytes", "13"}}));
    EXPECT_FALSE(validate_topic_overrides({{"min.cleanable.dirty.ratio", "1.5"}}));
    EXPECT_FALSE(validate_topic_overrides({{"message.timestamp.type", "createtime"}}));
    EXPECT_FALSE(validate_topic_overrides({{"compression.gzip.level", "0"}}));
    EXPECT_TRUE(validate_topic_overrides({{"compression.gzip.level", "-1"}}));
    EXPECT_TRUE(validate_topic_overrides({{"retention.ms", "-1"}}));
}

TEST(topic_config, throttled_replicas_validator) {
    EXPECT_TRUE(validate_topic_overrides({{"leader.replication.throttled.replicas", "*"}}));
    EXPECT_TRUE(validate_topic_overrides({{"leader.replication.throttled.replicas", "0:1,1:2"}}));
    EXPECT_FALSE(validate_topic_overrides({{"follower.replication.throttled.replicas", "0-1"}}));
    auto r = resolve({{"leader.replication.throttled.replicas", "0:1, 1:2"}}, broker());
    EXPECT_EQ(r.config.leader_replication_throttled_replicas, (list_value{"0:1", "1:2"}));
    EXPECT_TRUE(entry(r, "leader.replication.throttled.replicas").synonyms.size() == 1);
}

TEST(topic_config, compaction_lag_bounds) {
    auto s =
        validate_topic_overrides({{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}});
    ASSERT_FALSE(s);
    EXPECT_NE(s.err().message.find("min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"),
              std::string::npos);
    auto r = resolve_topic_config({{"min.compaction.lag.ms", "10"}},
                                  broker({{"log.cleaner.max.compaction.lag.ms", "5"}}));
    EXPECT_FALSE(r);
}

}  // namespace
}  // namespace samsa::config
