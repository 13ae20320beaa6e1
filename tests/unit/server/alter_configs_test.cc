// AlterConfigs (key 33, the legacy whole-set form) against the in-process
// broker: a topic's dynamic configs are replaced and validate_only changes
// nothing; unknown topics, unknown keys and invalid values get the error
// codes Kafka's controller answers.
#include <gtest/gtest.h>

#include <algorithm>

#include "broker_fixture.h"
#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"

namespace samsa::server::test {
namespace {

using protocol::alter_configs_request;
using protocol::alter_configs_response;

constexpr int8_t k_topic = 2;

class alter_configs_test : public broker_test {
  protected:
    alter_configs_response::alter_configs_resource_response alter(
        int8_t type, const std::string& name, std::map<std::string, std::string> configs,
        bool validate_only = false) {
        alter_configs_request req;
        req.validate_only = validate_only;
        auto& r = req.resources.emplace_back();
        r.resource_type = type;
        r.resource_name = name;
        for (auto& [k, v] : configs) {
            auto& c = r.configs.emplace_back();
            c.name = k;
            c.value = v;
        }
        auto resp = broker().call<alter_configs_response>(req, 2);
        if (resp.responses.size() != 1) {
            ADD_FAILURE() << "expected one response";
            return {};
        }
        return resp.responses[0];
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

TEST_F(alter_configs_test, sets_topic_config) {
    const auto name = unique_name("ac-ok");
    broker().create_topic(name);
    auto r = alter(k_topic, name, {{"retention.ms", "54321"}});
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.resource_name, name);
    EXPECT_EQ(value(name, "retention.ms"), "54321");
}

TEST_F(alter_configs_test, replaces_the_whole_set) {
    const auto name = unique_name("ac-replace");
    broker().create_topic(name, 1, 1, {{"retention.ms", "11111"}});
    ASSERT_ERROR(alter(k_topic, name, {{"segment.ms", "600000"}}).error_code, error_code::none);
    // retention.ms was not in the new set: back to the default.
    EXPECT_NE(value(name, "retention.ms"), "11111");
    EXPECT_EQ(value(name, "segment.ms"), "600000");
}

TEST_F(alter_configs_test, validate_only_changes_nothing) {
    const auto name = unique_name("ac-validate");
    broker().create_topic(name, 1, 1, {{"retention.ms", "22222"}});
    auto r = alter(k_topic, name, {{"retention.ms", "33333"}}, /*validate_only=*/true);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(value(name, "retention.ms"), "22222");
}

TEST_F(alter_configs_test, unknown_topic_is_unknown_topic_or_partition) {
    auto r = alter(k_topic, unique_name("ac-missing"), {{"retention.ms", "1000"}});
    EXPECT_ERROR(r.error_code, error_code::unknown_topic_or_partition);
}

TEST_F(alter_configs_test, unknown_key_is_invalid_config) {
    const auto name = unique_name("ac-key");
    broker().create_topic(name);
    EXPECT_ERROR(alter(k_topic, name, {{"no.such.config", "1"}}).error_code,
                 error_code::invalid_config);
}

TEST_F(alter_configs_test, invalid_value_is_invalid_config) {
    const auto name = unique_name("ac-value");
    broker().create_topic(name);
    EXPECT_ERROR(alter(k_topic, name, {{"retention.ms", "soon"}}).error_code,
                 error_code::invalid_config);
    EXPECT_ERROR(alter(k_topic, name, {{"cleanup.policy", "bogus"}}).error_code,
                 error_code::invalid_config);
}

}  // namespace
}  // namespace samsa::server::test
