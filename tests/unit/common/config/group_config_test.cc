// common/config/group_config.h: a group's configs (KIP-848's GroupConfig)
// validated against the broker's bounds with Kafka's messages, resolved over
// the broker's defaults, and described with their sources.
#include "common/config/group_config.h"

#include <gtest/gtest.h>

#include "common/config/broker_config_def.h"

namespace samsa::config {
namespace {

using kv = std::map<std::string, std::string>;

config_set broker(const kv& file = {}) {
    config_set s(broker_config_def());
    EXPECT_TRUE(s.set_layer(config_layer::static_file, file).ok());
    return s;
}

std::string refusal(const kv& overrides, const config_set& b = broker()) {
    auto s = validate_group_configs(overrides, b);
    if (s) {
        return "";
    }
    EXPECT_EQ(s.code(), error_code::invalid_config);
    return s.err().message;
}

TEST(group_config, values_within_the_brokers_bounds_are_accepted) {
    EXPECT_EQ(refusal({}), "");
    EXPECT_EQ(refusal({{"consumer.session.timeout.ms", "60000"},
                       {"consumer.heartbeat.interval.ms", "15000"}}),
              "");
}

TEST(group_config, kafkas_messages_for_what_is_refused) {
    EXPECT_EQ(refusal({{"consumer.session.timeout", "50000"}}),
              "Unknown group config name: consumer.session.timeout");
    EXPECT_EQ(refusal({{"share.session.timeout.ms", "50000"}}),
              "Group config share.session.timeout.ms is for share groups (KIP-932), which this "
              "broker does not serve.");
    EXPECT_EQ(refusal({{"consumer.session.timeout.ms", "abc"}}),
              "Invalid value abc for configuration consumer.session.timeout.ms: Not a number of "
              "type INT");
    EXPECT_NE(refusal({{"consumer.heartbeat.interval.ms", "0"}}), "");
    EXPECT_EQ(refusal({{"consumer.session.timeout.ms", "44999"}}),
              "consumer.session.timeout.ms must be greater than or equal to "
              "group.consumer.min.session.timeout.ms");
    EXPECT_EQ(refusal({{"consumer.session.timeout.ms", "60001"}}),
              "consumer.session.timeout.ms must be less than or equal to "
              "group.consumer.max.session.timeout.ms");
    EXPECT_EQ(refusal({{"consumer.heartbeat.interval.ms", "4999"}}),
              "consumer.heartbeat.interval.ms must be greater than or equal to "
              "group.consumer.min.heartbeat.interval.ms");
    EXPECT_EQ(refusal({{"consumer.heartbeat.interval.ms", "15001"}}),
              "consumer.heartbeat.interval.ms must be less than or equal to "
              "group.consumer.max.heartbeat.interval.ms");
}

TEST(group_config, the_session_must_outlast_the_interval_with_the_brokers_defaults) {
    auto b = broker({{"group.consumer.min.session.timeout.ms", "1000"},
                     {"group.consumer.min.heartbeat.interval.ms", "1000"},
                     {"group.consumer.heartbeat.interval.ms", "3000"}});
    // The broker's interval (3000) stands in for the group's.
    EXPECT_EQ(refusal({{"consumer.session.timeout.ms", "3000"}}, b),
              "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
    EXPECT_EQ(refusal({{"consumer.session.timeout.ms", "3001"}}, b), "");
    EXPECT_EQ(refusal({{"consumer.session.timeout.ms", "3001"},
                       {"consumer.heartbeat.interval.ms", "3001"}},
                      b),
              "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
}

TEST(group_config, resolved_over_the_defaults) {
    const group_config_values defaults{45000, 5000};
    auto v = resolve_group_config({}, defaults);
    EXPECT_EQ(v.consumer_session_timeout_ms, 45000);
    EXPECT_EQ(v.consumer_heartbeat_interval_ms, 5000);
    v = resolve_group_config({{"consumer.heartbeat.interval.ms", "7000"}}, defaults);
    EXPECT_EQ(v.consumer_session_timeout_ms, 45000);
    EXPECT_EQ(v.consumer_heartbeat_interval_ms, 7000);
    // Unreadable (never written so): the default.
    v = resolve_group_config({{"consumer.session.timeout.ms", "x"}}, defaults);
    EXPECT_EQ(v.consumer_session_timeout_ms, 45000);
}

TEST(group_config, described_with_their_sources) {
    auto b = broker({{"group.consumer.session.timeout.ms", "50000"}});
    auto entries = describe_group_configs({{"consumer.heartbeat.interval.ms", "6000"}}, b);
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].name, "consumer.heartbeat.interval.ms");
    EXPECT_EQ(entries[0].value, "6000");
    EXPECT_EQ(entries[0].source, config_source::group_config);
    ASSERT_EQ(entries[0].synonyms.size(), 1u);
    EXPECT_EQ(entries[0].synonyms[0].source, config_source::group_config);
    EXPECT_EQ(entries[1].name, "consumer.session.timeout.ms");
    EXPECT_EQ(entries[1].value, "50000");  // the broker's
    EXPECT_EQ(entries[1].source, config_source::default_config);
    EXPECT_EQ(entries[1].type, config_type::int32);
    EXPECT_FALSE(entries[1].read_only);
    EXPECT_TRUE(group_config_def().check_definitions().empty());
}

}  // namespace
}  // namespace samsa::config
