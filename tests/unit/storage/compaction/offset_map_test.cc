#include "storage/compaction/offset_map.h"

#include <gtest/gtest.h>

#include <string>

namespace samsa::storage::compaction {
namespace {

bytes_view key(const std::string& s) {
    return as_bytes_view(s);
}

TEST(offset_map, the_latest_put_for_a_key_wins) {
    offset_map m(1 << 16, 0.9);
    EXPECT_EQ(m.get(key("a")), -1);
    EXPECT_TRUE(m.put(key("a"), 3));
    EXPECT_TRUE(m.put(key("b"), 4));
    EXPECT_TRUE(m.put(key("a"), 7));
    EXPECT_EQ(m.get(key("a")), 7);
    EXPECT_EQ(m.get(key("b")), 4);
    EXPECT_EQ(m.size(), 2u);
    EXPECT_EQ(m.latest_offset(), 7);
    EXPECT_TRUE(m.put(key(""), 8));  // an empty key is a key
    EXPECT_EQ(m.get(key("")), 8);
}

TEST(offset_map, refuses_new_keys_once_full_but_updates_known_ones) {
    offset_map m(24 * 10, 0.5);  // 10 slots, 5 keys
    EXPECT_EQ(m.capacity(), 5u);
    for (int i = 0; i < 5; ++i) {
        EXPECT_TRUE(m.put(key("k" + std::to_string(i)), i));
    }
    EXPECT_FALSE(m.put(key("k5"), 5));
    EXPECT_EQ(m.get(key("k5")), -1);
    EXPECT_TRUE(m.put(key("k0"), 9));
    EXPECT_EQ(m.get(key("k0")), 9);
    m.clear();
    EXPECT_EQ(m.size(), 0u);
    EXPECT_EQ(m.get(key("k0")), -1);
    EXPECT_EQ(m.latest_offset(), -1);
}

TEST(offset_map, holds_many_keys) {
    offset_map m(24 * 200000, 0.9);
    for (int i = 0; i < 150000; ++i) {
        ASSERT_TRUE(m.put(key("key-" + std::to_string(i)), i));
    }
    for (int i = 0; i < 150000; i += 997) {
        EXPECT_EQ(m.get(key("key-" + std::to_string(i))), i);
    }
}

}  // namespace
}  // namespace samsa::storage::compaction
