// DescribeConfigs (key 32) against the in-process broker: topic and broker
// configs with their sources, selected keys, and the errors Kafka answers
// for unknown topics, invalid topic names, other broker ids, non-numeric
// broker names and unknown resource types; a group's configs.
#include <gtest/gtest.h>

#include <algorithm>

#include "broker_fixture.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_configs_request;
using protocol::describe_configs_response;
using config_entry =
    describe_configs_response::describe_configs_result::describe_configs_resource_result;

constexpr int8_t k_topic = 2;
constexpr int8_t k_broker = 4;
// DescribeConfigsResponse config sources.
constexpr int8_t k_dynamic_topic_config = 1;
constexpr int8_t k_default_config = 5;

class describe_configs_test : public broker_test {
  protected:
    describe_configs_response::describe_configs_result describe(
        int8_t type, const std::string& name,
        std::optional<std::vector<std::string>> keys = std::nullopt) {
        describe_configs_request req;
        auto& r = req.resources.emplace_back();
        r.resource_type = type;
        r.resource_name = name;
        r.configuration_keys = std::move(keys);
        auto resp = broker().call<describe_configs_response>(req, 4);
        if (resp.results.size() != 1) {
            ADD_FAILURE() << "expected one result";
            return {};
        }
        return resp.results[0];
    }
};

const config_entry* find(const describe_configs_response::describe_configs_result& r,
                         const std::string& key) {
    auto it = std::find_if(r.configs.begin(), r.configs.end(),
                           [&](const auto& c) { return c.name == key; });
    return it == r.configs.end() ? nullptr : &*it;
}

TEST_F(describe_configs_test, topic_configs_with_sources) {
    const auto name = unique_name("dc-topic");
    broker().create_topic(name, 1, 1, {{"retention.ms", "12345"}});
    auto r = describe(k_topic, name);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.resource_name, name);
    const auto* retention = find(r, "retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, "12345");
    EXPECT_EQ(retention->config_source, k_dynamic_topic_config);
    const auto* cleanup = find(r, "cleanup.policy");
    ASSERT_NE(cleanup, nullptr);
    EXPECT_EQ(cleanup->value, "delete");
    EXPECT_NE(cleanup->config_source, k_dynamic_topic_config);
}

TEST_F(describe_configs_test, selected_keys_only) {
    const auto name = unique_name("dc-keys");
    broker().create_topic(name);
    auto r = describe(k_topic, name, std::vector<std::string>{"cleanup.policy"});
    EXPECT_ERROR(r.error_code, error_code::none);
    ASSERT_EQ(r.configs.size(), 1u);
    EXPECT_EQ(r.configs[0].name, "cleanup.policy");
}

TEST_F(describe_configs_test, unknown_topic_is_unknown_topic_or_partition) {
    auto r = describe(k_topic, unique_name("dc-missing"));
    EXPECT_ERROR(r.error_code, error_code::unknown_topic_or_partition);
}

TEST_F(describe_configs_test, invalid_topic_name_is_invalid_topic_exception) {
    EXPECT_ERROR(describe(k_topic, "bad name!").error_code, error_code::invalid_topic_exception);
}

TEST_F(describe_configs_test, this_broker) {
    auto r = describe(k_broker, "1");
    EXPECT_ERROR(r.error_code, error_code::none);
    const auto* num_partitions = find(r, "num.partitions");
    ASSERT_NE(num_partitions, nullptr);
    EXPECT_EQ(num_partitions->value, "1");
    const auto* message_max = find(r, "message.max.bytes");
    ASSERT_NE(message_max, nullptr);
    EXPECT_EQ(message_max->config_source, k_default_config);
}

TEST_F(describe_configs_test, other_broker_id_is_invalid_request) {
    EXPECT_ERROR(describe(k_broker, "2").error_code, error_code::invalid_request);
}

TEST_F(describe_configs_test, non_numeric_broker_is_invalid_request) {
    EXPECT_ERROR(describe(k_broker, "abc").error_code, error_code::invalid_request);
}

TEST_F(describe_configs_test, unknown_resource_type_is_invalid_request) {
    EXPECT_ERROR(describe(99, "x").error_code, error_code::invalid_request);
}

// A group's configs (KIP-848): every key, the broker's default until the
// group sets it (IncrementalAlterConfigs), then GROUP_CONFIG (8).
TEST_F(describe_configs_test, a_groups_configs_and_where_they_come_from) {
    constexpr int8_t k_group = 32;
    EXPECT_ERROR(describe(k_group, "").error_code, error_code::invalid_request);
    const auto group = unique_name("dc-group");
    auto r = describe(k_group, group);
    EXPECT_ERROR(r.error_code, error_code::none);
    ASSERT_EQ(r.configs.size(), 2u);
    const auto* interval = find(r, "consumer.heartbeat.interval.ms");
    ASSERT_NE(interval, nullptr);
    EXPECT_EQ(interval->value, "5000");
    EXPECT_EQ(interval->config_source, k_default_config);
    EXPECT_EQ(interval->config_type, 3);  // INT
    EXPECT_FALSE(interval->read_only);

    protocol::incremental_alter_configs_request req;
    auto& res = req.resources.emplace_back();
    res.resource_type = k_group;
    res.resource_name = group;
    auto& c = res.configs.emplace_back();
    c.name = "consumer.heartbeat.interval.ms";
    c.config_operation = 0;  // SET
    c.value = "6000";
    auto resp = broker().call<protocol::incremental_alter_configs_response>(req, 1);
    ASSERT_EQ(resp.responses.size(), 1u);
    ASSERT_ERROR(resp.responses[0].error_code, error_code::none);
    // The alteration reaches this broker's image asynchronously.
    EXPECT_TRUE(broker_fixture::wait_until([&] {
        auto now =
            describe(k_group, group, std::vector<std::string>{"consumer.heartbeat.interval.ms"});
        return now.configs.size() == 1 && now.configs[0].value == "6000" &&
               now.configs[0].config_source == 8;
    }));
}

}  // namespace
}  // namespace samsa::server::test
