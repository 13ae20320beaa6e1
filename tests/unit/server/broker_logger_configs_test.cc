// The BROKER_LOGGER resource (KIP-412) against the in-process broker:
// DescribeConfigs lists every logger as DYNAMIC_BROKER_LOGGER_CONFIG;
// IncrementalAlterConfigs changes levels here (never through the
// controller), validate_only changes nothing, one bad operation changes
// nothing, and a request mixing loggers and topics answers both.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "common/logging/loggers.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"

namespace samsa::server::test {
namespace {

using protocol::incremental_alter_configs_request;
using protocol::incremental_alter_configs_response;
using resource = incremental_alter_configs_request::alter_configs_resource;

constexpr int8_t k_topic = 2;
constexpr int8_t k_broker_logger = 8;
constexpr int8_t k_dynamic_broker_logger_config = 6;

class broker_logger_configs_test : public broker_test {
  protected:
    void TearDown() override { logging::reset_levels(); }

    std::string self() { return std::to_string(broker().node_id()); }

    resource loggers(std::vector<std::tuple<std::string, int8_t, std::optional<std::string>>> ops,
                     std::string name = {}) {
        resource r;
        r.resource_type = k_broker_logger;
        r.resource_name = name.empty() ? self() : name;
        for (auto& [n, op, v] : ops) {
            auto& c = r.configs.emplace_back();
            c.name = n;
            c.config_operation = op;
            c.value = v;
        }
        return r;
    }

    incremental_alter_configs_response alter(std::vector<resource> resources,
                                             bool validate_only = false) {
        incremental_alter_configs_request req;
        req.resources = std::move(resources);
        req.validate_only = validate_only;
        return broker().call<incremental_alter_configs_response>(req, 1);
    }

    protocol::describe_configs_response describe(std::string name) {
        protocol::describe_configs_request req;
        auto& r = req.resources.emplace_back();
        r.resource_type = k_broker_logger;
        r.resource_name = std::move(name);
        r.configuration_keys = std::nullopt;
        return broker().call<protocol::describe_configs_response>(req, 4);
    }

    std::string level(const std::string& logger) {
        const auto resp = describe(self());
        for (const auto& c : resp.results.at(0).configs) {
            if (c.name == logger) {
                return c.value.value_or("null");
            }
        }
        return "missing";
    }
};

TEST_F(broker_logger_configs_test, describe_lists_every_logger_with_its_level) {
    auto resp = describe(self());
    ASSERT_EQ(resp.results.size(), 1u);
    EXPECT_ERROR(resp.results[0].error_code, error_code::none);
    const auto& configs = resp.results[0].configs;
    ASSERT_FALSE(configs.empty());
    EXPECT_EQ(configs[0].name, "root");
    for (const auto& c : configs) {
        EXPECT_EQ(c.value, "INFO") << c.name;
        EXPECT_EQ(c.config_source, k_dynamic_broker_logger_config);
        EXPECT_FALSE(c.read_only);
        EXPECT_FALSE(c.is_sensitive);
    }
}

TEST_F(broker_logger_configs_test, another_brokers_id_or_none_is_invalid_request) {
    EXPECT_ERROR(describe("").results[0].error_code, error_code::invalid_request);
    auto other = describe(std::to_string(broker().node_id() + 1));
    EXPECT_ERROR(other.results[0].error_code, error_code::invalid_request);
    EXPECT_EQ(other.results[0].error_message, "Unexpected broker id, expected " + self() +
                                                  ", but received " +
                                                  std::to_string(broker().node_id() + 1));
    auto r = alter({loggers({{"kafka.log", 0, "DEBUG"}}, "77")});
    EXPECT_ERROR(r.responses.at(0).error_code, error_code::invalid_request);
    EXPECT_EQ(level("kafka.log"), "INFO");
}

TEST_F(broker_logger_configs_test, set_and_delete_change_levels_here) {
    auto r = alter({loggers({{"kafka.log", 0, "DEBUG"}, {"root", 0, "WARN"}})});
    ASSERT_EQ(r.responses.size(), 1u);
    EXPECT_ERROR(r.responses[0].error_code, error_code::none);
    EXPECT_EQ(r.responses[0].resource_type, k_broker_logger);
    EXPECT_EQ(level("kafka.log"), "DEBUG");
    EXPECT_EQ(level("state.change.logger"), "WARN");

    EXPECT_ERROR(alter({loggers({{"kafka.log", 1, std::nullopt}})}).responses[0].error_code,
                 error_code::none);
    EXPECT_EQ(level("kafka.log"), "WARN");
}

TEST_F(broker_logger_configs_test, validate_only_and_a_bad_operation_change_nothing) {
    EXPECT_ERROR(alter({loggers({{"kafka.log", 0, "DEBUG"}})}, true).responses[0].error_code,
                 error_code::none);
    EXPECT_EQ(level("kafka.log"), "INFO");

    struct refused {
        std::tuple<std::string, int8_t, std::optional<std::string>> op;
        error_code code;
    };
    for (const auto& [op, code] : std::vector<refused>{
             {{"kafka.nope", 0, "DEBUG"}, error_code::invalid_config},
             {{"kafka.server", 0, "LOUD"}, error_code::invalid_config},
             {{"kafka.server", 0, std::nullopt}, error_code::invalid_request},
             {{"root", 1, std::nullopt}, error_code::invalid_request},
             {{"kafka.server", 2, "DEBUG"}, error_code::invalid_request},
             {{"kafka.server", 3, "DEBUG"}, error_code::invalid_request},
             {{"kafka.server", 9, "DEBUG"}, error_code::invalid_request},
             {{"kafka.log", 0, "WARN"}, error_code::invalid_request},  // a duplicate key
         }) {
        auto r = alter({loggers({{"kafka.log", 0, "DEBUG"}, op})});
        EXPECT_ERROR(r.responses.at(0).error_code, code) << std::get<0>(op);
        EXPECT_EQ(level("kafka.log"), "INFO") << std::get<0>(op);
    }
}

TEST_F(broker_logger_configs_test, loggers_and_topics_in_one_request_are_both_answered) {
    broker().create_topic("broker-logger-mixed", 1);
    resource topic;
    topic.resource_type = k_topic;
    topic.resource_name = "broker-logger-mixed";
    auto& c = topic.configs.emplace_back();
    c.name = "retention.ms";
    c.config_operation = 0;
    c.value = "60000";
    auto r = alter({loggers({{"kafka.log", 0, "TRACE"}}), topic});
    ASSERT_EQ(r.responses.size(), 2u);
    for (const auto& res : r.responses) {
        EXPECT_ERROR(res.error_code, error_code::none) << res.resource_name;
    }
    EXPECT_EQ(level("kafka.log"), "TRACE");
}

}  // namespace
}  // namespace samsa::server::test
