#include "tools/client_options.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "tools/group_offsets_reset.h"
#include "tools/perf_support.h"

namespace samsa::tools {
namespace {

using std::chrono::milliseconds;

TEST(parse_duration, accepts_units_and_bare_seconds) {
    EXPECT_EQ(parse_duration("30s"), milliseconds(30000));
    EXPECT_EQ(parse_duration("500ms"), milliseconds(500));
    EXPECT_EQ(parse_duration("1.5s"), milliseconds(1500));
    EXPECT_EQ(parse_duration("2m"), milliseconds(120000));
    EXPECT_EQ(parse_duration("1h"), milliseconds(3600000));
    EXPECT_EQ(parse_duration("5"), milliseconds(5000));
}

TEST(parse_duration, rejects_garbage) {
    EXPECT_FALSE(parse_duration(""));
    EXPECT_FALSE(parse_duration("soon"));
    EXPECT_FALSE(parse_duration("5 parsecs"));
    EXPECT_FALSE(parse_duration("-1s"));
}

TEST(format_duration, prints_the_short_form) {
    EXPECT_EQ(format_duration(milliseconds(2000)), "2s");
    EXPECT_EQ(format_duration(milliseconds(250)), "250ms");
    EXPECT_EQ(format_duration(milliseconds(1500)), "1.5s");
}

TEST(parse_key_value, splits_at_the_first_equals) {
    auto kv = parse_key_value("sasl.jaas.config=a=b");
    ASSERT_TRUE(kv.has_value());
    EXPECT_EQ(kv->first, "sasl.jaas.config");
    EXPECT_EQ(kv->second, "a=b");
    EXPECT_FALSE(parse_key_value("novalue").has_value());
    EXPECT_FALSE(parse_key_value("=x").has_value());
}

TEST(load_properties_file, reads_java_style_properties) {
    std::string path = ::testing::TempDir() + "client.properties";
    {
        std::ofstream f(path);
        f << "# comment\n! also a comment\n\nsecurity.protocol = PLAINTEXT\nclient.id:tool\n";
    }
    auto props = load_properties_file(path);
    ASSERT_TRUE(props.has_value());
    ASSERT_EQ(props->size(), 2u);
    EXPECT_EQ((*props)[0], (std::pair<std::string, std::string>{"security.protocol", "PLAINTEXT"}));
    EXPECT_EQ((*props)[1], (std::pair<std::string, std::string>{"client.id", "tool"}));
    std::remove(path.c_str());
    EXPECT_FALSE(load_properties_file(path).has_value());
}

// The broker's parser reads it: what a Java client's file may hold beyond
// key=value lines.
TEST(load_properties_file, reads_continuations_blank_separators_and_escapes) {
    std::string path = ::testing::TempDir() + "client2.properties";
    {
        std::ofstream f(path);
        f << "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule \\\n"
             "    required username=\"alice\" password=\"a=b\";\n"
             "client.id tool   \n"
             "a\\:b = c\\=d\n"
             "client.id = again\n";
    }
    auto props = load_properties_file(path);
    ASSERT_TRUE(props.has_value()) << props.err().message;
    ASSERT_EQ(props->size(), 3u);
    EXPECT_EQ((*props)[0].second,
              "org.apache.kafka.common.security.plain.PlainLoginModule required "
              "username=\"alice\" password=\"a=b\";");
    // A later definition replaces the earlier one in place.
    EXPECT_EQ((*props)[1], (std::pair<std::string, std::string>{"client.id", "again"}));
    EXPECT_EQ((*props)[2], (std::pair<std::string, std::string>{"a:b", "c=d"}));
    std::remove(path.c_str());
}

TEST(parse_reset_datetime, reads_kafkas_format_in_utc_by_default) {
    EXPECT_EQ(parse_reset_datetime("1970-01-01T00:00:00.000"), 0);
    EXPECT_EQ(parse_reset_datetime("2023-11-14T22:13:20.123"), 1700000000123);
    EXPECT_EQ(parse_reset_datetime("2023-11-14T22:13:20Z"), 1700000000000);
    EXPECT_EQ(parse_reset_datetime("2023-11-15T00:13:20.000+02:00"), 1700000000000);
    EXPECT_EQ(parse_reset_datetime("2023-11-14T20:13:20.000-0200"), 1700000000000);
    EXPECT_FALSE(parse_reset_datetime("2023-11-14 22:13:20"));
    EXPECT_FALSE(parse_reset_datetime("2023-13-01T00:00:00"));
    EXPECT_FALSE(parse_reset_datetime("yesterday"));
}

TEST(throughput_throttler, paces_sends_to_the_target_rate) {
    auto start = perf_clock::now();
    throughput_throttler t(1000, start);  // one record per millisecond
    EXPECT_EQ(t.wait_before(0, start).count(), 0);
    EXPECT_EQ(t.wait_before(10, start), std::chrono::milliseconds(10));
    EXPECT_EQ(t.wait_before(10, start + milliseconds(20)).count(), 0);
    throughput_throttler unthrottled(-1, start);
    EXPECT_EQ(unthrottled.wait_before(1000000, start).count(), 0);
}

TEST(json_object, writes_numbers_strings_and_nesting) {
    json_object inner;
    inner.add("p99", 1.25);
    json_object j;
    j.add("records", int64_t(3)).add("name", std::string("a\"b")).add("latency_ms", inner);
    EXPECT_EQ(j.str(), R"({"records": 3, "name": "a\"b", "latency_ms": {"p99": 1.250}})");
}

}  // namespace
// A Java client's --command-config, handed to librdkafka verbs.
TEST(for_librdkafka, maps_java_login_and_pem_stores_to_librdkafka_names) {
    property_list java{
        {"security.protocol", "SASL_SSL"},
        {"sasl.mechanism", "SCRAM-SHA-512"},
        {"sasl.jaas.config",
         "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" "
         "password=\"a;b\";"},
        {"ssl.truststore.type", "PEM"},
        {"ssl.truststore.location", "/ca.pem"},
        {"ssl.keystore.type", "PEM"},
        {"ssl.keystore.location", "/me.pem"},
    };
    auto out = for_librdkafka(java);
    ASSERT_TRUE(out) << out.err().message;
    const property_list want{
        {"security.protocol", "SASL_SSL"}, {"sasl.mechanism", "SCRAM-SHA-512"},
        {"sasl.username", "alice"},        {"sasl.password", "a;b"},
        {"ssl.ca.location", "/ca.pem"},    {"ssl.certificate.location", "/me.pem"},
        {"ssl.key.location", "/me.pem"},
    };
    EXPECT_EQ(*out, want);
}

TEST(for_librdkafka, leaves_librdkafka_names_and_other_stores_alone) {
    property_list mixed{
        {"sasl.username", "bob"},
        {"sasl.password", "pw"},
        {"sasl.jaas.config",
         "org.apache.kafka.common.security.plain.PlainLoginModule required "
         "username=\"alice\" password=\"x\";"},
        {"ssl.keystore.location", "/me.p12"},  // no PEM type: librdkafka's PKCS#12
    };
    auto out = for_librdkafka(mixed);
    ASSERT_TRUE(out);
    const property_list want{
        {"sasl.username", "bob"}, {"sasl.password", "pw"}, {"ssl.keystore.location", "/me.p12"}};
    EXPECT_EQ(*out, want);
    EXPECT_FALSE(for_librdkafka({{"sasl.jaas.config", "no module"}}));
}

}  // namespace samsa::tools
