// The named loggers: levels follow the root's unless set, Kafka's level names
// and errors, log.level.overrides parsing, and the JSON line layout.
#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>
#include <nlohmann/json.hpp>

#include "common/logging/json_formatter.h"
#include "common/logging/loggers.h"

namespace samsa::logging {
namespace {

class logging_test : public ::testing::Test {
  protected:
    void TearDown() override { reset_levels(); }

    static std::string level_of(std::string_view name) {
        for (const auto& l : levels()) {
            if (l.name == name) {
                return l.level;
            }
        }
        return "?";
    }
};

TEST_F(logging_test, every_logger_follows_the_root_until_it_has_a_level_of_its_own) {
    ASSERT_TRUE(set_level("root", "WARN"));
    EXPECT_EQ(level_of("kafka.log"), "WARN");
    EXPECT_EQ(storage().level(), spdlog::level::warn);

    ASSERT_TRUE(set_level("kafka.log", "DEBUG"));
    ASSERT_TRUE(set_level("root", "ERROR"));
    EXPECT_EQ(level_of("kafka.log"), "DEBUG");
    EXPECT_EQ(level_of("state.change.logger"), "ERROR");
    EXPECT_TRUE(storage().should_log(spdlog::level::debug));
    EXPECT_FALSE(state_change().should_log(spdlog::level::warn));

    ASSERT_TRUE(unset_level("kafka.log"));
    EXPECT_EQ(level_of("kafka.log"), "ERROR");
}

TEST_F(logging_test, the_root_comes_first_and_the_others_by_name) {
    auto all = levels();
    ASSERT_GE(all.size(), 10u);
    EXPECT_EQ(all[0].name, "root");
    for (size_t i = 2; i < all.size(); ++i) {
        EXPECT_LT(all[i - 1].name, all[i].name);
    }
    EXPECT_TRUE(exists("kafka.log.LogCleaner"));
    EXPECT_FALSE(exists("kafka.log.Nope"));
}

TEST_F(logging_test, errors_are_kafkas) {
    auto unknown = set_level("kafka.nope", "INFO");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.err().code, error_code::invalid_config);
    EXPECT_EQ(unknown.err().message, "Logger kafka.nope does not exist!");

    auto bad = set_level("kafka.log", "info");  // log4j names are upper case
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.err().code, error_code::invalid_config);

    auto root = unset_level("root");
    ASSERT_FALSE(root);
    EXPECT_EQ(root.err().code, error_code::invalid_request);
    EXPECT_EQ(root.err().message, "Removing the log level of the root logger is not allowed");
}

TEST_F(logging_test, level_names_map_both_ways) {
    for (const auto& name : valid_levels()) {
        auto l = parse_level(name);
        ASSERT_TRUE(l) << name;
        EXPECT_EQ(level_name(*l), name);
    }
    EXPECT_FALSE(parse_level("OFF"));
    EXPECT_FALSE(parse_level(""));
}

TEST_F(logging_test, overrides_parse_as_logger_colon_level_pairs) {
    auto ok = parse_level_overrides("kafka.log:DEBUG, state.change.logger:TRACE");
    ASSERT_TRUE(ok);
    ASSERT_EQ(ok->size(), 2u);
    EXPECT_EQ((*ok)[1], (std::pair<std::string, std::string>{"state.change.logger", "TRACE"}));
    EXPECT_TRUE(parse_level_overrides("")->empty());
    EXPECT_FALSE(parse_level_overrides("kafka.log=DEBUG"));
    EXPECT_FALSE(parse_level_overrides("kafka.log:"));
    EXPECT_FALSE(parse_level_overrides("kafka.log:DEBUG,"));
    EXPECT_FALSE(parse_level_overrides("kafka.nope:DEBUG"));
    EXPECT_FALSE(parse_level_overrides("kafka.log:LOUD"));
}

TEST(message_fields_test, key_value_words_become_fields_and_anything_else_none) {
    auto f = message_fields(R"(event=x partition=t-0 error="disk full: no space" n=3)");
    ASSERT_EQ(f.size(), 4u);
    EXPECT_EQ(f[2], (std::pair<std::string, std::string>{"error", "disk full: no space"}));
    EXPECT_EQ(f[3].second, "3");
    EXPECT_TRUE(message_fields("a free sentence").empty());
    EXPECT_TRUE(message_fields(R"(event=x error="unterminated)").empty());
    EXPECT_TRUE(message_fields("").empty());
}

nlohmann::json format_line(std::string_view logger, std::string_view text) {
    spdlog::details::log_msg msg(spdlog::string_view_t(logger.data(), logger.size()),
                                 spdlog::level::warn,
                                 spdlog::string_view_t(text.data(), text.size()));
    spdlog::memory_buf_t out;
    json_formatter().format(msg, out);
    std::string line(out.data(), out.size());
    EXPECT_EQ(line.back(), '\n');
    return nlohmann::json::parse(line);
}

TEST(json_formatter_test, a_line_is_one_object_with_the_messages_fields) {
    auto j = format_line("kafka.log", R"(event=log_recovered partition=t-0 level=7)");
    EXPECT_EQ(j["logger"], "kafka.log");
    EXPECT_EQ(j["level"], "WARN") << "the fixed field wins over the message's";
    EXPECT_EQ(j["event"], "log_recovered");
    EXPECT_EQ(j["partition"], "t-0");
    EXPECT_EQ(j["message"], "event=log_recovered partition=t-0 level=7");
    EXPECT_TRUE(j["time"].get<std::string>().ends_with("Z"));
    EXPECT_TRUE(j["thread"].is_number());
}

TEST(json_formatter_test, quotes_control_bytes_and_invalid_utf8_stay_valid_json) {
    auto j = format_line("root", "client \"x\"\n\t\x01 caf\xc3\xa9 \xff end");
    EXPECT_EQ(j["message"], "client \"x\"\n\t\x01 caf\xc3\xa9 \xef\xbf\xbd end");
}

}  // namespace
}  // namespace samsa::logging
