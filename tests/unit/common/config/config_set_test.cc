#include "common/config/config_set.h"

#include <gtest/gtest.h>

namespace samsa::config {
namespace {

const config_def& test_def() {
    static const config_def d = [] {
        config_def d;
        d.define({"threads", config_type::int32, "4", validator::at_least(1), importance::high,
                  update_mode::cluster_wide, "doc"});
        d.define({"listeners",
                  config_type::list,
                  "PLAINTEXT://:9092",
                  {},
                  importance::high,
                  update_mode::per_broker,
                  "doc"});
        d.define({"dir",
                  config_type::string,
                  "./data",
                  {},
                  importance::high,
                  update_mode::read_only,
                  "doc"});
        d.define({"id", config_type::int32, default_value::required(), validator::at_least(0),
                  importance::high, update_mode::read_only, "doc"});
        d.define({"optional.ms",
                  config_type::int64,
                  default_value::null(),
                  {},
                  importance::low,
                  update_mode::cluster_wide,
                  "doc"});
        d.define({"secret",
                  config_type::password,
                  default_value::null(),
                  {},
                  importance::low,
                  update_mode::per_broker,
                  "doc"});
        return d;
    }();
    return d;
}

TEST(config_set, defaults_apply_until_a_layer_sets_a_key) {
    config_set s(test_def());
    EXPECT_EQ(s.get_int("threads"), 4);
    EXPECT_EQ(s.source("threads"), config_source::default_config);
    EXPECT_FALSE(s.is_configured("threads"));
    EXPECT_TRUE(s.is_null("optional.ms"));
    EXPECT_FALSE(s.get_optional_long("optional.ms"));
    EXPECT_TRUE(s.is_null("id"));  // required, not set
}

TEST(config_set, unknown_keys_are_warnings_not_errors) {
    config_set s(test_def());
    auto r = s.set_layer(config_layer::static_file, {{"threads", "8"}, {"no.such.key", "1"}});
    EXPECT_TRUE(r.ok());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].key, "no.such.key");
    EXPECT_NE(r.warnings[0].message.find("isn't a known config"), std::string::npos);
    EXPECT_EQ(s.get_int("threads"), 8);
}

TEST(config_set, invalid_values_are_errors_naming_key_and_value) {
    config_set s(test_def());
    auto r = s.set_layer(config_layer::static_file, {{"threads", "0"}, {"id", "x"}});
    ASSERT_EQ(r.errors.size(), 2u);
    EXPECT_EQ(r.errors[0].key, "id");
    EXPECT_EQ(r.errors[0].message,
              "Invalid value x for configuration id: Not a number of type INT");
    EXPECT_EQ(r.errors[1].message,
              "Invalid value 0 for configuration threads: Value must be at least 1");
    EXPECT_NE(r.error_summary().find("; "), std::string::npos);
    EXPECT_EQ(s.get_int("threads"), 4);  // the invalid value was not stored
}

TEST(config_set, missing_required_key_is_reported) {
    config_set s(test_def());
    auto r = s.check_required();
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].key, "id");
    EXPECT_NE(r.errors[0].message.find("Missing required configuration \"id\""), std::string::npos);
    (void)s.set_layer(config_layer::static_file, {{"id", "3"}});
    EXPECT_TRUE(s.check_required().ok());
}

TEST(config_set, overrides_win_over_file_and_both_report_static) {
    config_set s(test_def());
    (void)s.set_layer(config_layer::static_file, {{"threads", "8"}, {"dir", "/file"}});
    (void)s.set_layer(config_layer::static_override, {{"threads", "16"}});
    EXPECT_EQ(s.get_int("threads"), 16);
    EXPECT_EQ(s.layer_of("threads"), config_layer::static_override);
    EXPECT_EQ(s.source("threads"), config_source::static_broker_config);
    EXPECT_EQ(s.get_string("dir"), "/file");
    EXPECT_EQ(s.layer_of("dir"), config_layer::static_file);
    EXPECT_EQ(s.raw(config_layer::static_file, "threads"), "8");
}

TEST(config_set, dynamic_layers_take_precedence_in_order) {
    config_set s(test_def());
    (void)s.set_layer(config_layer::static_file, {{"threads", "8"}});
    ASSERT_TRUE(s.set_layer(config_layer::dynamic_cluster_default, {{"threads", "10"}}).ok());
    EXPECT_EQ(s.get_int("threads"), 10);
    EXPECT_EQ(s.source("threads"), config_source::dynamic_default_broker_config);
    ASSERT_TRUE(s.set_layer(config_layer::dynamic_broker, {{"threads", "12"}}).ok());
    EXPECT_EQ(s.get_int("threads"), 12);
    EXPECT_EQ(s.source("threads"), config_source::dynamic_broker_config);
    // Removing the per-broker value falls back to the cluster default.
    ASSERT_TRUE(s.set_layer(config_layer::dynamic_broker, {}).ok());
    EXPECT_EQ(s.get_int("threads"), 10);
}

TEST(config_set, read_only_keys_cannot_be_set_dynamically) {
    config_set s(test_def());
    auto r = s.set_layer(config_layer::dynamic_broker, {{"dir", "/x"}});
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].message.find("read-only"), std::string::npos);
    EXPECT_EQ(s.get_string("dir"), "./data");
}

TEST(config_set, per_broker_keys_cannot_be_cluster_defaults) {
    config_set s(test_def());
    EXPECT_FALSE(
        s.set_layer(config_layer::dynamic_cluster_default, {{"listeners", "X://:1"}}).ok());
    EXPECT_TRUE(s.set_layer(config_layer::dynamic_broker, {{"listeners", "X://:1"}}).ok());
}

TEST(config_set, synonyms_list_every_layer_highest_first) {
    config_set s(test_def());
    (void)s.set_layer(config_layer::static_file, {{"threads", "8"}});
    (void)s.set_layer(config_layer::static_override, {{"threads", "9"}});
    (void)s.set_layer(config_layer::dynamic_broker, {{"threads", "12"}});
    auto syn = s.synonyms({"threads"});
    ASSERT_EQ(syn.size(), 3u);
    EXPECT_EQ(syn[0].source, config_source::dynamic_broker_config);
    EXPECT_EQ(syn[0].value, "12");
    EXPECT_EQ(syn[1].source, config_source::static_broker_config);
    EXPECT_EQ(syn[1].value, "9");  // the override, not the file
    EXPECT_EQ(syn[2].source, config_source::default_config);
    EXPECT_EQ(syn[2].value, "4");
}

TEST(config_set, synonyms_hide_sensitive_values) {
    config_set s(test_def());
    (void)s.set_layer(config_layer::static_file, {{"secret", "hunter2"}});
    auto syn = s.synonyms({"secret"});
    ASSERT_EQ(syn.size(), 1u);
    EXPECT_FALSE(syn[0].value.has_value());
}

TEST(config_set, source_names_and_wire_values) {
    EXPECT_EQ(source_name(config_source::dynamic_topic_config), "DYNAMIC_TOPIC_CONFIG");
    EXPECT_EQ(static_cast<int>(config_source::dynamic_topic_config), 1);
    EXPECT_EQ(static_cast<int>(config_source::static_broker_config), 4);
    EXPECT_EQ(static_cast<int>(config_source::default_config), 5);
    EXPECT_EQ(source_of(config_layer::static_override), config_source::static_broker_config);
}

}  // namespace
}  // namespace samsa::config
