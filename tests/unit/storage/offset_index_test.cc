#include "storage/offset_index.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "common/bytes.h"
#include "storage/temp_dir.h"

namespace samsa::storage {
namespace {

using testing::temp_dir;
constexpr int64_t max_bytes = 8 * 100;

std::unique_ptr<offset_index> open_index(const std::string& path, int64_t base, bool active = true,
                                         int64_t max = max_bytes) {
    auto idx = offset_index::open(path, base, max, active);
    EXPECT_TRUE(idx.has_value()) << (idx ? "" : idx.err().message);
    return idx ? std::move(*idx) : nullptr;
}

// Seed 003: in segment 00000000000000170410, entry (3, 348) is absolute offset
// 170413 at position 348.
TEST(offset_index, seed_worked_example_relative_entry_to_absolute_offset) {
    temp_dir dir;
    auto idx = open_index(dir.file("00000000000000170410.index"), 170410);
    ASSERT_TRUE(idx->append(170413, 348));
    EXPECT_EQ(idx->entry(0), (offset_position{170413, 348}));
    // On disk: relative offset 3, position 348, big-endian.
    ASSERT_TRUE(idx->close(true));
    std::ifstream in(dir.file("00000000000000170410.index"), std::ios::binary);
    uint8_t raw[8];
    in.read(reinterpret_cast<char*>(raw), 8);
    EXPECT_EQ(load_be32(raw), 3u);
    EXPECT_EQ(load_be32(raw + 4), 348u);
    EXPECT_EQ(std::filesystem::file_size(dir.file("00000000000000170410.index")), 8u);
}

TEST(offset_index, lookup_returns_greatest_entry_at_or_below_target) {
    temp_dir dir;
    auto idx = open_index(dir.file("a.index"), 100);
    ASSERT_TRUE(idx->append(103, 348));
    ASSERT_TRUE(idx->append(110, 900));
    ASSERT_TRUE(idx->append(150, 4000));
    EXPECT_EQ(idx->lookup(99), (offset_position{100, 0}));
    EXPECT_EQ(idx->lookup(100), (offset_position{100, 0}));
    EXPECT_EQ(idx->lookup(102), (offset_position{100, 0}));
    EXPECT_EQ(idx->lookup(103), (offset_position{103, 348}));
    EXPECT_EQ(idx->lookup(109), (offset_position{103, 348}));
    EXPECT_EQ(idx->lookup(110), (offset_position{110, 900}));
    EXPECT_EQ(idx->lookup(1000000), (offset_position{150, 4000}));
}

TEST(offset_index, append_rejects_non_increasing_entries_and_full_index) {
    temp_dir dir;
    auto idx = open_index(dir.file("a.index"), 0, true, 16);
    ASSERT_EQ(idx->max_entries(), 2u);
    EXPECT_FALSE(idx->append(5, 0));  // position 0 is never indexed
    ASSERT_TRUE(idx->append(5, 10));
    EXPECT_EQ(idx->append(5, 20).code(), error_code::corrupt_message);
    EXPECT_EQ(idx->append(6, 10).code(), error_code::corrupt_message);
    ASSERT_TRUE(idx->append(6, 20));
    EXPECT_TRUE(idx->is_full());
    EXPECT_FALSE(idx->append(7, 30));
    EXPECT_FALSE(idx->append(int64_t(1) << 40, 30));
}

TEST(offset_index, truncate_removes_entries_at_or_after_offset) {
    temp_dir dir;
    auto idx = open_index(dir.file("a.index"), 0);
    for (int i = 1; i <= 10; ++i) {
        ASSERT_TRUE(idx->append(i * 10, i * 100));
    }
    idx->truncate_to(55);
    EXPECT_EQ(idx->entries(), 5u);
    idx->truncate_to(50);
    EXPECT_EQ(idx->entries(), 4u);
    EXPECT_EQ(idx->last_entry(), (offset_position{40, 400}));
    ASSERT_TRUE(idx->append(45, 450));
    idx->truncate_to(0);
    EXPECT_EQ(idx->entries(), 0u);
    EXPECT_EQ(idx->last_entry(), (offset_position{0, 0}));
}

TEST(offset_index, preallocated_then_trimmed_on_close_and_reopened) {
    temp_dir dir;
    auto path = dir.file("a.index");
    {
        auto idx = open_index(path, 1000);
        EXPECT_EQ(std::filesystem::file_size(path), uint64_t(max_bytes));
        ASSERT_TRUE(idx->append(1001, 10));
        ASSERT_TRUE(idx->append(1002, 20));
        ASSERT_TRUE(idx->close(true));
    }
    EXPECT_EQ(std::filesystem::file_size(path), 16u);
    auto idx = open_index(path, 1000, false);
    EXPECT_EQ(idx->entries(), 2u);
    EXPECT_EQ(std::filesystem::file_size(path), 16u);
    EXPECT_EQ(idx->lookup(1003), (offset_position{1002, 20}));
}

TEST(offset_index, untrimmed_file_after_crash_keeps_leading_entries) {
    temp_dir dir;
    auto path = dir.file("a.index");
    {
        auto idx = open_index(path, 0);
        ASSERT_TRUE(idx->append(3, 100));
        ASSERT_TRUE(idx->append(9, 200));
        // No close: a crash leaves the preallocated size.
        ASSERT_TRUE(idx->flush());
    }
    EXPECT_EQ(std::filesystem::file_size(path), uint64_t(max_bytes));
    auto idx = open_index(path, 0);
    EXPECT_EQ(idx->entries(), 2u);
    ASSERT_TRUE(idx->append(12, 300));
    EXPECT_EQ(idx->entries(), 3u);
}

TEST(offset_index, size_not_multiple_of_entry_is_corrupt) {
    temp_dir dir;
    auto path = dir.file("a.index");
    {
        std::ofstream out(path, std::ios::binary);
        out << std::string(13, '\0');
    }
    auto idx = offset_index::open(path, 0, max_bytes, false);
    ASSERT_FALSE(idx);
    EXPECT_EQ(idx.err().code, error_code::corrupt_message);
    EXPECT_NE(idx.err().message.find("multiple of 8"), std::string::npos);
}

TEST(offset_index, entries_out_of_order_are_corrupt) {
    temp_dir dir;
    auto path = dir.file("a.index");
    {
        uint8_t raw[24];
        store_be32(raw, 5), store_be32(raw + 4, 100);
        store_be32(raw + 8, 4), store_be32(raw + 12, 200);  // offset goes back
        store_be32(raw + 16, 9), store_be32(raw + 20, 300);
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<char*>(raw), sizeof raw);
    }
    auto idx = offset_index::open(path, 0, max_bytes, false);
    ASSERT_FALSE(idx);
    EXPECT_EQ(idx.err().code, error_code::corrupt_message);
}

TEST(offset_index, check_against_log_flags_positions_past_the_end) {
    temp_dir dir;
    auto idx = open_index(dir.file("a.index"), 0);
    ASSERT_TRUE(idx->append(3, 5000));
    EXPECT_TRUE(idx->check_against_log(6000));
    EXPECT_EQ(idx->check_against_log(5000).code(), error_code::corrupt_message);
}

TEST(offset_index, regrows_after_trim_for_appends) {
    temp_dir dir;
    auto path = dir.file("a.index");
    auto idx = open_index(path, 0);
    ASSERT_TRUE(idx->append(3, 100));
    ASSERT_TRUE(idx->trim());
    EXPECT_EQ(std::filesystem::file_size(path), 8u);
    ASSERT_TRUE(idx->grow_to_max());
    EXPECT_EQ(std::filesystem::file_size(path), uint64_t(max_bytes));
    ASSERT_TRUE(idx->append(4, 200));
    EXPECT_EQ(idx->lookup(5), (offset_position{4, 200}));
}

// Bytes of real disk blocks behind `path` (a sparse file's holes cost none).
int64_t disk_bytes(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0);
    return int64_t(st.st_blocks) * 512;
}

// An active segment's index is 10 MiB long but must not take 10 MiB of disk:
// 5,000 idle partitions would need 100 GB (Kafka preallocates sparsely too).
TEST(offset_index, preallocation_is_sparse_and_disk_follows_the_entries) {
    temp_dir dir;
    const int64_t ten_mib = 10 * 1024 * 1024;
    auto path = dir.file("00000000000000000000.index");
    auto idx = open_index(path, 0, true, ten_mib);
    EXPECT_EQ(std::filesystem::file_size(path), uint64_t(ten_mib));
    EXPECT_LT(disk_bytes(path), 64 * 1024);
    for (int64_t i = 1; i <= 2000; ++i) {
        ASSERT_TRUE(idx->append(i, int32_t(i * 4096)));
    }
    // 2,000 entries are 16,000 bytes: a few pages, not megabytes.
    EXPECT_GE(disk_bytes(path), 16000);
    EXPECT_LT(disk_bytes(path), 128 * 1024);
    for (int64_t i = 1; i <= 2000; ++i) {
        ASSERT_EQ(idx->entry(size_t(i - 1)), (offset_position{i, int32_t(i * 4096)}));
    }
}

// Recovery reads neither the holes of a preallocated index (on tmpfs each
// page read through the mapping takes memory, and on a full one it is a
// SIGBUS) nor misses data behind them.
TEST(offset_index, reopening_skips_holes_but_finds_entries_behind_them) {
    temp_dir dir;
    const int64_t ten_mib = 10 * 1024 * 1024;
    auto path = dir.file("00000000000000000000.index");
    {
        auto idx = open_index(path, 0, true, ten_mib);
        ASSERT_TRUE(idx->append(1, 4096));
        ASSERT_TRUE(idx->append(2, 8192));
        ASSERT_TRUE(idx->flush());  // no close: the crash leaves it 10 MiB
    }
    {
        auto idx = open_index(path, 0, true, ten_mib);
        EXPECT_EQ(idx->entries(), 2u);
    }
    EXPECT_LT(disk_bytes(path), 64 * 1024);
    // A stray entry 5 MiB in, behind a hole of megabytes.
    {
        uint8_t raw[8];
        store_be32(raw, 7), store_be32(raw + 4, 100);
        std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
        out.seekp(5 * 1024 * 1024);
        out.write(reinterpret_cast<char*>(raw), sizeof raw);
    }
    auto idx = offset_index::open(path, 0, ten_mib, true);
    ASSERT_FALSE(idx);
    EXPECT_EQ(idx.err().code, error_code::corrupt_message);
    EXPECT_NE(idx.err().message.find("entry 655360 is out of order"), std::string::npos)
        << idx.err().message;
}

}  // namespace
}  // namespace samsa::storage

namespace samsa::storage {
namespace {

// The mapping is advised random (VmFlags "rr"): a fault maps one page, and
// no readahead zeroes the holes of the preallocated file.
TEST(offset_index, its_mapping_reads_no_ahead) {
    temp_dir dir;
    const std::string path = dir.file("00000000000000000000.index");
    auto idx = open_index(path, 0, true, 10 * 1024 * 1024);
    ASSERT_NE(idx, nullptr);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool in_mapping = false;
    std::optional<std::string> flags;
    while (std::getline(smaps, line)) {
        if (line.find(path) != std::string::npos) {
            in_mapping = true;
        } else if (in_mapping && line.rfind("VmFlags:", 0) == 0) {
            flags = line;
            break;
        }
    }
    ASSERT_TRUE(flags) << "no mapping of " << path;
    EXPECT_NE(flags->find(" rr"), std::string::npos) << *flags;
}

}  // namespace
}  // namespace samsa::storage
