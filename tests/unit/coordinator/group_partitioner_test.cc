#include "coordinator/group/group_partitioner.h"

#include <gtest/gtest.h>

#include <climits>

namespace samsa::coordinator {
namespace {

// Expected values computed by hand from s[0]*31^(n-1) + ... + s[n-1]:
//   "group": ((((103*31+114)*31+111)*31+117)*31+112) = 98629247
TEST(java_string_hash_code, matches_java_for_ascii) {
    EXPECT_EQ(java_string_hash_code(""), 0);
    EXPECT_EQ(java_string_hash_code("a"), 97);
    EXPECT_EQ(java_string_hash_code("group"), 98629247);
    EXPECT_EQ(java_string_hash_code("test"), 3556498);
    // Overflow wraps as Java's int does.
    EXPECT_EQ(java_string_hash_code("my-group"), -1906497762);
}

TEST(java_string_hash_code, counts_utf16_code_units) {
    EXPECT_EQ(java_string_hash_code("\xc3\xa9"), 233);  // U+00E9
    // U+1F600 is the surrogate pair D83D DE00: 0xD83D*31 + 0xDE00.
    EXPECT_EQ(java_string_hash_code("\xf0\x9f\x98\x80"), 1772899);
}

TEST(java_string_hash_code, malformed_utf8_counts_as_replacement_characters) {
    EXPECT_EQ(java_string_hash_code("\xff"), 65533);
    // A truncated two-byte sequence is one U+FFFD, then 'a' is itself.
    EXPECT_EQ(java_string_hash_code("\xc3"
                                    "a"),
              65533 * 31 + 97);
    EXPECT_EQ(java_string_hash_code("a\xc3"), 68540);
}

TEST(offsets_partition_for, seeds_example_and_kafka_abs) {
    // Seed inventory GRP-01: hashCode 3556498 maps to partition 48 of 50.
    EXPECT_EQ(offsets_partition_for("test", 50), 48);
    EXPECT_EQ(offsets_partition_for("group", 50), 47);
    EXPECT_EQ(offsets_partition_for("my-group", 50), 1906497762 % 50);
    // Utils.abs(Integer.MIN_VALUE) is 0, not a negative partition.
    EXPECT_EQ(java_string_hash_code("polygenelubricants"), INT32_MIN);
    EXPECT_EQ(kafka_abs(INT32_MIN), 0);
    EXPECT_EQ(offsets_partition_for("polygenelubricants", 50), 0);
    EXPECT_EQ(offsets_partition_for("anything", 1), 0);
}

}  // namespace
}  // namespace samsa::coordinator
