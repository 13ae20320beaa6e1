#include "tools/record_formatter.h"

#include <gtest/gtest.h>

namespace samsa::tools {
namespace {

record_view sample() {
    record_view r;
    r.partition = 2;
    r.offset = 41;
    r.ts_kind = timestamp_kind::create_time;
    r.timestamp = 1700000000123;
    r.key = "k";
    r.value = "v";
    return r;
}

record_formatter make(const property_list& props) {
    auto f = record_formatter::from_properties(props);
    EXPECT_TRUE(f.has_value());
    return *f;
}

TEST(record_formatter, prints_only_the_value_by_default) {
    EXPECT_EQ(make({}).format(sample()), "v\n");
}

TEST(record_formatter, prints_fields_in_kafkas_order) {
    auto f = make({{"print.key", "true"},
                   {"print.timestamp", "true"},
                   {"print.offset", "true"},
                   {"print.partition", "true"}});
    EXPECT_EQ(f.format(sample()), "CreateTime:1700000000123\tPartition:2\tOffset:41\tk\tv\n");
}

TEST(record_formatter, honours_separators_and_null_literal) {
    auto f = make({{"print.key", "true"}, {"key.separator", ":"}, {"null.literal", "<null>"}});
    record_view r = sample();
    r.key.reset();
    EXPECT_EQ(f.format(r), "<null>:v\n");
    auto g = make({{"line.separator", "\\n--\\n"}});
    EXPECT_EQ(g.format(sample()), "v\n--\n");
}

TEST(record_formatter, prints_headers_or_no_headers) {
    auto f = make({{"print.headers", "true"}});
    record_view r = sample();
    EXPECT_EQ(f.format(r), "NO_HEADERS\tv\n");
    r.headers = {{"a", std::string_view("1")}, {"b", std::nullopt}};
    EXPECT_EQ(f.format(r), "a:1,b:null\tv\n");
}

TEST(record_formatter, log_append_time_and_missing_timestamps) {
    auto f = make({{"print.timestamp", "true"}, {"print.value", "false"}});
    record_view r = sample();
    r.ts_kind = timestamp_kind::log_append_time;
    EXPECT_EQ(f.format(r), "LogAppendTime:1700000000123\n");
    r.ts_kind = timestamp_kind::none;
    EXPECT_EQ(f.format(r), "NO_TIMESTAMP\n");
}

TEST(record_formatter, rejects_unknown_properties) {
    auto f = record_formatter::from_properties({{"print.kee", "true"}});
    ASSERT_FALSE(f.has_value());
    EXPECT_NE(f.err().message.find("print.kee"), std::string::npos);
}

}  // namespace
}  // namespace samsa::tools
