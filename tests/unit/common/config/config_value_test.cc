#include "common/config/config_value.h"

#include <gtest/gtest.h>

#include "common/config/config_def.h"
#include "common/config/validator.h"

namespace samsa::config {
namespace {

config_value ok(config_type t, std::string_view raw) {
    auto v = parse_value(t, raw);
    EXPECT_TRUE(v.has_value()) << raw << ": " << (v ? "" : v.err().message);
    return v ? *v : config_value{};
}

std::string fail(config_type t, std::string_view raw) {
    auto v = parse_value(t, raw);
    EXPECT_FALSE(v.has_value()) << raw;
    return v ? std::string() : v.err().message;
}

TEST(config_value, booleans_are_case_insensitive_and_trimmed) {
    EXPECT_EQ(std::get<bool>(ok(config_type::boolean, "true")), true);
    EXPECT_EQ(std::get<bool>(ok(config_type::boolean, " FALSE ")), false);
    EXPECT_EQ(std::get<bool>(ok(config_type::boolean, "True")), true);
    EXPECT_EQ(fail(config_type::boolean, "yes"), "Expected value to be either true or false");
    fail(config_type::boolean, "1");
    fail(config_type::boolean, "");
}

TEST(config_value, integers_respect_java_widths) {
    EXPECT_EQ(std::get<int64_t>(ok(config_type::int32, "2147483647")), 2147483647);
    EXPECT_EQ(std::get<int64_t>(ok(config_type::int32, "-2147483648")), -2147483648LL);
    EXPECT_EQ(std::get<int64_t>(ok(config_type::int32, " +42 ")), 42);
    EXPECT_EQ(fail(config_type::int32, "2147483648"), "Not a number of type INT");
    EXPECT_EQ(std::get<int64_t>(ok(config_type::int16, "32767")), 32767);
    EXPECT_EQ(fail(config_type::int16, "32768"), "Not a number of type SHORT");
    EXPECT_EQ(std::get<int64_t>(ok(config_type::int64, "9223372036854775807")), INT64_MAX);
    EXPECT_EQ(fail(config_type::int64, "9223372036854775808"), "Not a number of type LONG");
}

TEST(config_value, integers_reject_garbage) {
    for (auto raw : {"", "abc", "1.5", "1e3", "12abc", "0x10", "--1", "+-1", "1 2"}) {
        fail(config_type::int32, raw);
    }
}

TEST(config_value, doubles) {
    EXPECT_DOUBLE_EQ(std::get<double>(ok(config_type::float64, "0.5")), 0.5);
    EXPECT_DOUBLE_EQ(std::get<double>(ok(config_type::float64, "1")), 1.0);
    EXPECT_DOUBLE_EQ(std::get<double>(ok(config_type::float64, "1e-3")), 0.001);
    EXPECT_DOUBLE_EQ(std::get<double>(ok(config_type::float64, "2.5d")), 2.5);
    EXPECT_EQ(fail(config_type::float64, "half"), "Not a number of type DOUBLE");
}

TEST(config_value, strings_are_trimmed) {
    EXPECT_EQ(std::get<std::string>(ok(config_type::string, "  CreateTime \t")), "CreateTime");
    EXPECT_EQ(std::get<std::string>(ok(config_type::string, "")), "");
}

TEST(config_value, lists_split_on_commas_and_trim) {
    auto l = std::get<list_value>(ok(config_type::list, " a , b,c ,  d "));
    EXPECT_EQ(l, (list_value{"a", "b", "c", "d"}));
    EXPECT_TRUE(std::get<list_value>(ok(config_type::list, "   ")).empty());
    // Like Java's split(regex, -1): empty elements are kept (validators reject them).
    EXPECT_EQ(std::get<list_value>(ok(config_type::list, "a,,b,")), (list_value{"a", "", "b", ""}));
}

TEST(config_value, to_string_matches_kafka) {
    EXPECT_EQ(value_to_string(config_value{true}), "true");
    EXPECT_EQ(value_to_string(config_value{int64_t{-1}}), "-1");
    EXPECT_EQ(value_to_string(config_value{0.5}), "0.5");
    EXPECT_EQ(value_to_string(config_value{1.0}), "1.0");
    EXPECT_EQ(value_to_string(config_value{list_value{"compact", "delete"}}), "compact,delete");
    EXPECT_EQ(value_to_string(config_value{}), "");
}

TEST(config_value, type_names_and_wire_ids) {
    EXPECT_EQ(type_name(config_type::int32), "int");
    EXPECT_EQ(type_name(config_type::int64), "long");
    EXPECT_EQ(type_name(config_type::int16), "short");
    EXPECT_EQ(type_name(config_type::class_name), "class");
    EXPECT_EQ(describe_configs_type_id(config_type::boolean), 1);
    EXPECT_EQ(describe_configs_type_id(config_type::list), 7);
    EXPECT_EQ(describe_configs_type_id(config_type::password), 9);
}

// ---- validators

std::optional<std::string> check(const validator& v, config_type t, std::string_view raw) {
    return v.check(ok(t, raw));
}

TEST(validator, at_least) {
    auto v = validator::at_least(1);
    EXPECT_EQ(v.description(), "[1,...]");
    EXPECT_FALSE(check(v, config_type::int32, "1"));
    EXPECT_EQ(check(v, config_type::int32, "0"), "Value must be at least 1");
}

TEST(validator, between_integers_and_doubles) {
    auto v = validator::between(0, 1);
    EXPECT_EQ(v.description(), "[0,...,1]");
    EXPECT_FALSE(check(v, config_type::float64, "0.5"));
    EXPECT_FALSE(check(v, config_type::float64, "1"));
    EXPECT_EQ(check(v, config_type::float64, "1.01"), "Value must be no more than 1");
    EXPECT_EQ(check(v, config_type::float64, "-0.1"), "Value must be at least 0");
    auto lz4 = validator::between(1, 17);
    EXPECT_EQ(check(lz4, config_type::int32, "18"), "Value must be no more than 17");
}

TEST(validator, one_of_is_case_sensitive) {
    auto v = validator::one_of({"CreateTime", "LogAppendTime"});
    EXPECT_EQ(v.description(), "[CreateTime, LogAppendTime]");
    EXPECT_FALSE(check(v, config_type::string, "LogAppendTime"));
    EXPECT_EQ(check(v, config_type::string, "createtime"),
              "String must be one of: CreateTime, LogAppendTime");
}

TEST(validator, list_of) {
    auto v = validator::list_of({"compact", "delete"});
    EXPECT_FALSE(check(v, config_type::list, "compact,delete"));
    EXPECT_FALSE(check(v, config_type::list, ""));
    auto reason = check(v, config_type::list, "compact,shred");
    ASSERT_TRUE(reason);
    EXPECT_NE(reason->find("'shred'"), std::string::npos);
    auto non_empty = validator::list_of({"broker", "controller"}, false);
    EXPECT_EQ(check(non_empty, config_type::list, ""), "Empty list is not allowed");
}

TEST(validator, non_duplicate_list) {
    auto v = validator::non_duplicate_list(false);
    EXPECT_FALSE(check(v, config_type::list, "/a,/b"));
    EXPECT_TRUE(check(v, config_type::list, "/a,/a"));
    EXPECT_TRUE(check(v, config_type::list, "/a,,/b"));
    EXPECT_EQ(check(v, config_type::list, ""), "Empty list is not allowed");
    EXPECT_FALSE(check(validator::non_duplicate_list(true), config_type::list, ""));
}

TEST(validator, custom_and_either) {
    auto even = validator::custom("even", [](const config_value& v) -> std::optional<std::string> {
        return std::get<int64_t>(v) % 2 == 0 ? std::nullopt : std::optional<std::string>("odd");
    });
    EXPECT_EQ(even.description(), "even");
    EXPECT_EQ(check(even, config_type::int32, "3"), "odd");
    auto v = validator::either(validator::between(1, 9), validator::between(-1, -1));
    EXPECT_FALSE(check(v, config_type::int32, "-1"));
    EXPECT_FALSE(check(v, config_type::int32, "9"));
    EXPECT_TRUE(check(v, config_type::int32, "0"));
}

TEST(validator, null_passes_and_empty_validator_accepts_all) {
    EXPECT_FALSE(validator::at_least(1).check(config_value{}));
    EXPECT_FALSE(validator{}.check(config_value{int64_t{-5}}));
    EXPECT_EQ(validator{}.description(), "");
}

// ---- parse_config_value: the error message names key, value and the rule

TEST(parse_config_value, error_names_key_value_and_rule) {
    config_key k{"num.partitions",   config_type::int32,     "1",  validator::at_least(1),
                 importance::medium, update_mode::read_only, "doc"};
    auto bad_type = parse_config_value(k, "many");
    ASSERT_FALSE(bad_type);
    EXPECT_EQ(bad_type.err().code, error_code::invalid_config);
    EXPECT_EQ(bad_type.err().message,
              "Invalid value many for configuration num.partitions: Not a number of type INT");
    auto out_of_range = parse_config_value(k, "0");
    ASSERT_FALSE(out_of_range);
    EXPECT_EQ(out_of_range.err().message,
              "Invalid value 0 for configuration num.partitions: Value must be at least 1");
}

TEST(parse_config_value, passwords_are_never_echoed) {
    config_key k{"ssl.key.password",
                 config_type::password,
                 default_value::null(),
                 validator::custom(
                     "x", [](const config_value&) { return std::optional<std::string>("bad"); }),
                 importance::low,
                 update_mode::read_only,
                 "doc"};
    auto r = parse_config_value(k, "s3cret");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().message.find("s3cret"), std::string::npos);
    EXPECT_NE(r.err().message.find("[hidden]"), std::string::npos);
}

TEST(config_def, lookup_sorting_and_definition_check) {
    config_def d;
    d.define({"b.key", config_type::int32, "1", validator::at_least(0), importance::low,
              update_mode::read_only, "doc"});
    d.define({"a.key", config_type::int32, "-1", validator::at_least(0), importance::low,
              update_mode::read_only, "doc"});  // bad default
    d.define({"c.key",
              config_type::string,
              default_value::required(),
              {},
              importance::low,
              update_mode::read_only,
              "doc"});
    ASSERT_NE(d.find("a.key"), nullptr);
    EXPECT_EQ(d.find("zzz"), nullptr);
    auto sorted = d.sorted_keys();
    ASSERT_EQ(sorted.size(), 3u);
    EXPECT_EQ(sorted[0]->name, "a.key");
    EXPECT_EQ(sorted[2]->name, "c.key");
    EXPECT_TRUE(d.find("c.key")->required());
    auto problems = d.check_definitions();
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("a.key"), std::string::npos);
}

}  // namespace
}  // namespace samsa::config
