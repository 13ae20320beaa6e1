#include "common/uuid.h"

#include <gtest/gtest.h>

#include <set>

namespace samsa {
namespace {

TEST(uuid, prints_as_kafka_base64url_without_padding) {
    uuid u;
    for (size_t i = 0; i < 16; ++i) {
        u.data[i] = uint8_t(i);
    }
    // Base64url of bytes 00..0f, unpadded.
    EXPECT_EQ(u.to_string(), "AAECAwQFBgcICQoLDA0ODw");
    EXPECT_EQ(uuid{}.to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
}

TEST(uuid, parse_round_trips_and_rejects_bad_text) {
    uuid u = uuid::random();
    auto p = uuid::parse(u.to_string());
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(*p, u);
    EXPECT_FALSE(uuid::parse("short").has_value());
    EXPECT_FALSE(uuid::parse("AAECAwQFBgcICQoLDA0OD!").has_value());
    // The last character may only carry the top 2 bits of the final byte.
    EXPECT_FALSE(uuid::parse("AAECAwQFBgcICQoLDA0ODx").has_value());
}

TEST(uuid, random_ids_are_distinct_and_never_zero_or_dash_prefixed) {
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        uuid u = uuid::random();
        EXPECT_FALSE(u.is_zero());
        auto s = u.to_string();
        EXPECT_NE(s[0], '-');
        EXPECT_TRUE(seen.insert(s).second);
    }
}

}  // namespace
}  // namespace samsa
