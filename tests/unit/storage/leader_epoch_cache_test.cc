#include "storage/leader_epoch_cache.h"

#include <gtest/gtest.h>

#include <fstream>

#include "storage/file_util.h"
#include "storage/temp_dir.h"

namespace samsa::storage {
namespace {

using testing::temp_dir;
using entries = std::vector<epoch_entry>;

leader_epoch_cache load(const temp_dir& dir) {
    auto c = leader_epoch_cache::load(dir.file("leader-epoch-checkpoint"));
    EXPECT_TRUE(c.has_value()) << (c ? "" : c.err().message);
    return std::move(*c);
}

TEST(leader_epoch_cache, assign_persists_in_kafka_format) {
    temp_dir dir;
    auto cache = load(dir);
    EXPECT_FALSE(cache.latest());
    ASSERT_TRUE(cache.assign(0, 0));
    ASSERT_TRUE(cache.assign(0, 5));  // same epoch, later offset: no change
    ASSERT_TRUE(cache.assign(2, 10));
    ASSERT_TRUE(cache.assign(5, 30));
    EXPECT_EQ(cache.entries(), (entries{{0, 0}, {2, 10}, {5, 30}}));
    EXPECT_EQ(*read_whole_file(dir.file("leader-epoch-checkpoint")), "0\n3\n0 0\n2 10\n5 30\n");
    auto reloaded = load(dir);
    EXPECT_EQ(reloaded.entries(), cache.entries());
}

TEST(leader_epoch_cache, assign_removes_entries_that_break_monotonicity) {
    temp_dir dir;
    auto cache = load(dir);
    ASSERT_TRUE(cache.assign(1, 0));
    ASSERT_TRUE(cache.assign(2, 10));
    ASSERT_TRUE(cache.assign(3, 20));
    ASSERT_TRUE(cache.assign(4, 15));  // start offset below epoch 3's: 3 goes
    EXPECT_EQ(cache.entries(), (entries{{1, 0}, {2, 10}, {4, 15}}));
    ASSERT_TRUE(cache.assign(2, 5));  // a lower epoch restarted earlier
    EXPECT_EQ(cache.entries(), (entries{{1, 0}, {2, 5}}));
}

TEST(leader_epoch_cache, end_offset_for_follows_kafka) {
    temp_dir dir;
    auto cache = load(dir);
    EXPECT_EQ(cache.end_offset_for(0, 100), (epoch_entry{undefined_epoch, undefined_epoch_offset}));
    ASSERT_TRUE(cache.assign(2, 10));
    ASSERT_TRUE(cache.assign(4, 30));
    ASSERT_TRUE(cache.assign(6, 50));
    EXPECT_EQ(cache.end_offset_for(6, 100), (epoch_entry{6, 100}));  // latest: the LEO
    EXPECT_EQ(cache.end_offset_for(4, 100), (epoch_entry{4, 50}));
    EXPECT_EQ(cache.end_offset_for(5, 100), (epoch_entry{4, 50}));  // unknown: floor epoch
    EXPECT_EQ(cache.end_offset_for(1, 100), (epoch_entry{1, 10}));  // below every epoch
    EXPECT_EQ(cache.end_offset_for(7, 100), (epoch_entry{undefined_epoch, undefined_epoch_offset}));
    EXPECT_EQ(cache.end_offset_for(undefined_epoch, 100),
              (epoch_entry{undefined_epoch, undefined_epoch_offset}));
    EXPECT_EQ(cache.epoch_for_offset(9), std::nullopt);
    EXPECT_EQ(cache.epoch_for_offset(10), 2);
    EXPECT_EQ(cache.epoch_for_offset(49), 4);
    EXPECT_EQ(cache.epoch_for_offset(1000), 6);
}

TEST(leader_epoch_cache, truncate_from_end_and_start) {
    temp_dir dir;
    auto cache = load(dir);
    ASSERT_TRUE(cache.assign(2, 10));
    ASSERT_TRUE(cache.assign(4, 30));
    ASSERT_TRUE(cache.assign(6, 50));
    ASSERT_TRUE(cache.truncate_from_end(50));
    EXPECT_EQ(cache.entries(), (entries{{2, 10}, {4, 30}}));
    ASSERT_TRUE(cache.truncate_from_end(100));
    EXPECT_EQ(cache.entries(), (entries{{2, 10}, {4, 30}}));
    ASSERT_TRUE(cache.truncate_from_start(35));
    EXPECT_EQ(cache.entries(), (entries{{4, 35}}));
    ASSERT_TRUE(cache.truncate_from_start(5));
    EXPECT_EQ(cache.entries(), (entries{{4, 35}}));
    EXPECT_EQ(load(dir).entries(), (entries{{4, 35}}));
    ASSERT_TRUE(cache.clear());
    EXPECT_TRUE(load(dir).entries().empty());
}

TEST(leader_epoch_cache, malformed_or_unordered_file_is_an_error) {
    temp_dir dir;
    for (const char* text : {"0\n2\n1 0\n", "0\n2\n3 10\n2 20\n", "0\n1\n-1 0\n", "0\n1\n1\n"}) {
        std::ofstream(dir.file("leader-epoch-checkpoint"), std::ios::binary) << text;
        auto c = leader_epoch_cache::load(dir.file("leader-epoch-checkpoint"));
        ASSERT_FALSE(c) << text;
        EXPECT_EQ(c.err().code, error_code::kafka_storage_error);
    }
}

}  // namespace
}  // namespace samsa::storage
