#include "storage/time_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/bytes.h"
#include "storage/temp_dir.h"

namespace samsa::storage {
namespace {

using testing::temp_dir;
constexpr int64_t max_bytes = 12 * 10;

std::unique_ptr<time_index> open_index(const std::string& path, int64_t base, bool active = true) {
    auto idx = time_index::open(path, base, max_bytes, active);
    EXPECT_TRUE(idx.has_value()) << (idx ? "" : idx.err().message);
    return idx ? std::move(*idx) : nullptr;
}

TEST(time_index, lookup_greatest_entry_at_or_below_timestamp) {
    temp_dir dir;
    auto idx = open_index(dir.file("a.timeindex"), 100);
    EXPECT_EQ(idx->lookup(5), (timestamp_offset{no_timestamp, 100}));
    ASSERT_TRUE(idx->maybe_append(1000, 105));
    ASSERT_TRUE(idx->maybe_append(2000, 110));
    ASSERT_TRUE(idx->maybe_append(3000, 130));
    EXPECT_EQ(idx->lookup(999), (timestamp_offset{no_timestamp, 100}));
    EXPECT_EQ(idx->lookup(1000), (timestamp_offset{1000, 105}));
    EXPECT_EQ(idx->lookup(2500), (timestamp_offset{2000, 110}));
    EXPECT_EQ(idx->lookup(99999), (timestamp_offset{3000, 130}));
}

TEST(time_index, only_growing_timestamps_are_appended) {
    temp_dir dir;
    auto idx = open_index(dir.file("a.timeindex"), 0);
    ASSERT_TRUE(idx->maybe_append(1000, 5));
    ASSERT_TRUE(idx->maybe_append(1000, 6));  // same timestamp: skipped
    ASSERT_TRUE(idx->maybe_append(900, 7));   // smaller: skipped
    EXPECT_EQ(idx->entries(), 1u);
    EXPECT_EQ(idx->maybe_append(2000, 4).code(), error_code::corrupt_message);  // offset back
    ASSERT_TRUE(idx->maybe_append(2000, 8));
    EXPECT_EQ(idx->last_entry(), (timestamp_offset{2000, 8}));
}

TEST(time_index, keeps_the_last_slot_for_the_roll_entry) {
    temp_dir dir;
    auto idx = open_index(dir.file("a.timeindex"), 0);
    ASSERT_EQ(idx->max_entries(), 10u);
    for (int i = 0; i < 9; ++i) {
        ASSERT_TRUE(idx->maybe_append(1000 + i, i));
    }
    EXPECT_TRUE(idx->is_full());
    EXPECT_FALSE(idx->maybe_append(5000, 20));
    ASSERT_TRUE(idx->maybe_append(5000, 20, true));
    EXPECT_EQ(idx->entries(), 10u);
}

TEST(time_index, truncate_removes_entries_at_or_after_offset) {
    temp_dir dir;
    auto idx = open_index(dir.file("a.timeindex"), 0);
    ASSERT_TRUE(idx->maybe_append(10, 1));
    ASSERT_TRUE(idx->maybe_append(20, 5));
    ASSERT_TRUE(idx->maybe_append(30, 9));
    idx->truncate_to(5);
    EXPECT_EQ(idx->entries(), 1u);
    EXPECT_EQ(idx->last_entry(), (timestamp_offset{10, 1}));
}

TEST(time_index, reopen_after_trim_and_after_crash) {
    temp_dir dir;
    auto path = dir.file("a.timeindex");
    {
        auto idx = open_index(path, 50);
        ASSERT_TRUE(idx->maybe_append(10, 51));
        ASSERT_TRUE(idx->maybe_append(20, 55));
        // crash: not trimmed
    }
    EXPECT_EQ(std::filesystem::file_size(path), uint64_t(max_bytes));
    {
        auto idx = open_index(path, 50);
        EXPECT_EQ(idx->entries(), 2u);
        ASSERT_TRUE(idx->close(true));
    }
    EXPECT_EQ(std::filesystem::file_size(path), 24u);
    auto idx = open_index(path, 50, false);
    EXPECT_EQ(idx->last_entry(), (timestamp_offset{20, 55}));
}

TEST(time_index, decreasing_timestamps_on_disk_are_corrupt) {
    temp_dir dir;
    auto path = dir.file("a.timeindex");
    {
        uint8_t raw[24];
        store_be64(raw, 20), store_be32(raw + 8, 1);
        store_be64(raw + 12, 10), store_be32(raw + 20, 2);
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<char*>(raw), sizeof raw);
    }
    auto idx = time_index::open(path, 0, max_bytes, false);
    ASSERT_FALSE(idx);
    EXPECT_EQ(idx.err().code, error_code::corrupt_message);
}

}  // namespace
}  // namespace samsa::storage
