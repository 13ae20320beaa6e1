// IncrementalAlterConfigs (key 44) against the in-process broker: SET,
// DELETE and APPEND on topic configs, and the errors Kafka answers for
// unknown topics, unknown keys, invalid values, APPEND to a non-list config,
// unknown operations, null values, duplicate keys and duplicate resources.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"

namespace samsa::server::test {
namespace {

using protocol::incremental_alter_configs_request;
using protocol::incremental_alter_configs_response;
using alterable_config =
    incremental_alter_configs_request::alter_configs_resource::alterable_config;

constexpr int8_t k_topic = 2;
constexpr int8_t k_set = 0;
constexpr int8_t k_delete = 1;
constexpr int8_t k_append = 2;

alterable_config op(std::string key, int8_t operation, std::optional<std::string> value) {
    alterable_config c;
    c.name = std::move(key);
    c.config_operation = operation;
    c.value = std::move(value);
    return c;
}

class incremental_alter_configs_test : public broker_test {
  protected:
    int16_t alter(const std::string& topic, std::vector<alterable_config> configs,
                  bool validate_only = false) {
        incremental_alter_configs_request req;
        req.validate_only = validate_only;
        auto& r = req.resources.emplace_back();
        r.resource_type = k_topic;
        r.resource_name = topic;
        r.configs = std::move(configs);
        auto resp = broker().call<incremental_alter_configs_response>(req, 1);
        if (resp.responses.size() != 1) {
            ADD_FAILURE() << "expected one response";
            return -1;
        }
        return resp.responses[0].error_code;
    }
    std::optional<std::string> value(const std::string& topic, const std::string& key) {
        protocol::describe_configs_request req;
        auto& r = req.resources.emplace_back();
        r.resource_type = k_topic;
        r.resource_name = topic;
        r.configuration_keys = std::vector<std::string>{key};
        auto resp = broker().call<protocol::describe_configs_response>(req, 4);
        if (resp.results.size() != 1 || resp.results[0].configs.size() != 1) {
            return std::nullopt;
        }
        return resp.results[0].configs[0].value;
    }
};

TEST_F(incremental_alter_configs_test, set_then_delete) {
    const auto name = unique_name("iac-set");
    broker().create_topic(name);
    ASSERT_ERROR(alter(name, {op("retention.ms", k_set, "777777")}), error_code::none);
    EXPECT_EQ(value(name, "retention.ms"), "777777");
    ASSERT_ERROR(alter(name, {op("retention.ms", k_delete, std::nullopt)}), error_code::none);
    EXPECT_NE(value(name, "retention.ms"), "777777");
}

TEST_F(incremental_alter_configs_test, append_to_list_config) {
    const auto name = unique_name("iac-append");
    broker().create_topic(name);
    ASSERT_ERROR(alter(name, {op("cleanup.policy", k_append, "compact")}), error_code::none);
    EXPECT_EQ(value(name, "cleanup.policy"), "delete,compact");
}

TEST_F(incremental_alter_configs_test, validate_only_changes_nothing) {
    const auto name = unique_name("iac-validate");
    broker().create_topic(name);
    ASSERT_ERROR(alter(name, {op("retention.ms", k_set, "888888")}, true), error_code::none);
    EXPECT_NE(value(name, "retention.ms"), "888888");
}

TEST_F(incremental_alter_configs_test, unknown_topic_is_unknown_topic_or_partition) {
    EXPECT_ERROR(alter(unique_name("iac-missing"), {op("retention.ms", k_set, "1")}),
                 error_code::unknown_topic_or_partition);
}

TEST_F(incremental_alter_configs_test, unknown_key_is_invalid_config) {
    const auto name = unique_name("iac-key");
    broker().create_topic(name);
    EXPECT_ERROR(alter(name, {op("no.such.config", k_set, "1")}), error_code::invalid_config);
}

TEST_F(incremental_alter_configs_test, invalid_value_is_invalid_config) {
    const auto name = unique_name("iac-value");
    broker().create_topic(name);
    EXPECT_ERROR(alter(name, {op("retention.ms", k_set, "soon")}), error_code::invalid_config);
}

TEST_F(incremental_alter_configs_test, append_to_non_list_is_invalid_config) {
    const auto name = unique_name("iac-append-scalar");
    broker().create_topic(name);
    EXPECT_ERROR(alter(name, {op("retention.ms", k_append, "1000")}), error_code::invalid_config);
}

TEST_F(incremental_alter_configs_test, unknown_operation_is_invalid_request) {
    const auto name = unique_name("iac-op");
    broker().create_topic(name);
    EXPECT_ERROR(alter(name, {op("retention.ms", 9, "1000")}), error_code::invalid_request);
}

TEST_F(incremental_alter_configs_test, set_to_null_is_invalid_request) {
    const auto name = unique_name("iac-null");
    broker().create_topic(name);
    EXPECT_ERROR(alter(name, {op("retention.ms", k_set, std::nullopt)}),
                 error_code::invalid_request);
}

TEST_F(incremental_alter_configs_test, duplicate_key_is_invalid_request) {
    const auto name = unique_name("iac-dup-key");
    broker().create_topic(name);
    EXPECT_ERROR(
        alter(name, {op("retention.ms", k_set, "1000"), op("retention.ms", k_set, "2000")}),
        error_code::invalid_request);
}

TEST_F(incremental_alter_configs_test, duplicate_resource_is_invalid_request) {
    const auto name = unique_name("iac-dup-resource");
    broker().create_topic(name);
    incremental_alter_configs_request req;
    for (int i = 0; i < 2; ++i) {
        auto& r = req.resources.emplace_back();
        r.resource_type = k_topic;
        r.resource_name = name;
        r.configs.push_back(op("retention.ms", k_set, "1000"));
    }
    auto resp = broker().call<incremental_alter_configs_response>(req, 1);
    ASSERT_FALSE(resp.responses.empty());
    for (const auto& r : resp.responses) {
        EXPECT_ERROR(r.error_code, error_code::invalid_request);
    }
}

}  // namespace
}  // namespace samsa::server::test
