#include "storage/log_segment.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "storage/segment_name.h"
#include "storage/temp_dir.h"
#include "storage/test_batches.h"

namespace samsa::storage {
namespace {

using testing::batch_spec;
using testing::make_batch;
using testing::temp_dir;
namespace fs = std::filesystem;

log_config small_config() {
    log_config c;
    c.index_interval_bytes = 100;
    c.segment_index_bytes = 8 * 1024;
    return c;
}

std::shared_ptr<log_segment> create_segment(const temp_dir& dir, int64_t base,
                                            const log_config& c = small_config()) {
    auto s = log_segment::create(dir.path(), base, c, 0);
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.err().message);
    return s ? *s : nullptr;
}

// Appends `n` batches of `records` records each from the segment's next offset;
// timestamps 1000 + 10 * offset. Returns the batches.
std::vector<bytes> fill(log_segment& seg, int n, int records = 3, size_t value_size = 40) {
    std::vector<bytes> out;
    for (int i = 0; i < n; ++i) {
        int64_t base = seg.next_offset();
        auto b = make_batch({.base_offset = base,
                             .records = records,
                             .value_size = value_size,
                             .base_timestamp = 1000 + 10 * base,
                             .timestamp_step = 10,
                             .fill = uint8_t(i)});
        EXPECT_TRUE(seg.append(b));
        out.push_back(std::move(b));
    }
    return out;
}

bytes read_all(const log_segment& seg, int64_t from, int64_t max_bytes = 1 << 30) {
    auto r = seg.read(from, max_bytes, -1, false);
    EXPECT_TRUE(r.has_value());
    if (!r || !*r) {
        return {};
    }
    return *(*r)->slice.read();
}

TEST(log_segment, file_names_are_twenty_digit_base_offsets) {
    EXPECT_EQ(segment_file_name(170410, log_suffix), "00000000000000170410.log");
    EXPECT_EQ(parse_segment_file_name("00000000000000170410.index", index_suffix), 170410);
    EXPECT_EQ(parse_segment_file_name("0000000000000017041.index", index_suffix), std::nullopt);
    EXPECT_EQ(parse_segment_file_name("00000000000000170410.index", log_suffix), std::nullopt);
    temp_dir dir;
    auto seg = create_segment(dir, 170410);
    EXPECT_TRUE(fs::exists(dir.file("00000000000000170410.log")));
    EXPECT_TRUE(fs::exists(dir.file("00000000000000170410.index")));
    EXPECT_TRUE(fs::exists(dir.file("00000000000000170410.timeindex")));
}

// Seed 003: segment 00000000000000170410 with index entry (3, 348); a lookup for
// an offset between entries scans the log forward from the greatest entry below.
TEST(log_segment, seed_worked_example_index_entry_and_forward_scan) {
    temp_dir dir;
    log_config c = small_config();
    c.index_interval_bytes = 347;
    auto seg = create_segment(dir, 170410, c);
    // 170410..170412: three records, 348 bytes.
    auto b1 =
        make_batch({.base_offset = 170410, .records = 3, .value_size = 86, .timestamp_step = 64});
    ASSERT_EQ(b1.size(), 348u);
    ASSERT_TRUE(seg->append(b1));
    auto b2 = make_batch({.base_offset = 170413, .records = 1});
    auto b3 = make_batch({.base_offset = 170414, .records = 2});
    auto b4 = make_batch({.base_offset = 170416, .records = 3});
    ASSERT_TRUE(seg->append(b2));
    ASSERT_TRUE(seg->append(b3));
    ASSERT_TRUE(seg->append(b4));
    ASSERT_EQ(seg->index().entries(), 1u);
    EXPECT_EQ(seg->index().entry(0), (offset_position{170413, 348}));
    // 170417 is between entries: the index says start at 348, the scan walks
    // over b2 and b3 to the batch holding it.
    EXPECT_EQ(seg->index().lookup(170417), (offset_position{170413, 348}));
    auto loc = seg->translate_offset(170417);
    ASSERT_TRUE(loc && *loc);
    EXPECT_EQ((*loc)->header.base_offset, 170416);
    EXPECT_EQ((*loc)->position, int64_t(348 + b2.size() + b3.size()));
    // Before any entry: scan from position 0.
    loc = seg->translate_offset(170411);
    ASSERT_TRUE(loc && *loc);
    EXPECT_EQ((*loc)->position, 0);
}

TEST(log_segment, append_read_and_next_offset) {
    temp_dir dir;
    auto seg = create_segment(dir, 100);
    EXPECT_TRUE(seg->empty());
    EXPECT_EQ(seg->next_offset(), 100);
    auto batches = fill(*seg, 20);
    EXPECT_EQ(seg->next_offset(), 160);
    bytes all;
    for (auto& b : batches) {
        testing::append_to(all, b);
    }
    EXPECT_EQ(seg->size_bytes(), int64_t(all.size()));
    EXPECT_EQ(read_all(*seg, 100), all);
    // From the middle of batch 5 (offsets 115..117): the whole batch 5 onward.
    bytes tail(all.begin() + int64_t(batches[0].size() * 5), all.end());
    EXPECT_EQ(read_all(*seg, 116), tail);
    auto none = seg->read(160, 1000, -1, false);
    ASSERT_TRUE(none);
    EXPECT_FALSE(*none);
    EXPECT_GT(seg->index().entries(), 5u);
}

TEST(log_segment, translate_offset_agrees_with_a_full_scan_for_every_offset) {
    for (int32_t interval : {0, 100, 1000}) {
        temp_dir dir;
        log_config c = small_config();
        c.index_interval_bytes = interval;
        auto seg = create_segment(dir, 1000, c);
        // Batches of 1-4 records with gaps between some of them.
        std::vector<std::pair<int64_t, int64_t>> ranges;  // base, last
        int64_t next = 1000;
        for (int i = 0; i < 40; ++i) {
            int records = 1 + i % 4;
            int64_t base = next + (i % 7 == 3 ? 5 : 0);
            ASSERT_TRUE(seg->append(make_batch({.base_offset = base, .records = records})));
            ranges.emplace_back(base, base + records - 1);
            next = base + records;
        }
        for (int64_t o = 990; o <= next + 2; ++o) {
            auto loc = seg->translate_offset(o);
            ASSERT_TRUE(loc);
            const std::pair<int64_t, int64_t>* expect = nullptr;
            for (const auto& r : ranges) {
                if (r.second >= o) {
                    expect = &r;
                    break;
                }
            }
            ASSERT_EQ(loc->has_value(), expect != nullptr) << "offset " << o;
            if (expect) {
                EXPECT_EQ((*loc)->header.base_offset, expect->first)
                    << "offset " << o << " interval " << interval;
            }
        }
        auto upper = seg->index().lookup_upper(next + 1);
        EXPECT_FALSE(upper);
    }
}

TEST(log_segment, append_rejects_offsets_that_go_back) {
    temp_dir dir;
    auto seg = create_segment(dir, 100);
    ASSERT_TRUE(seg->append(make_batch({.base_offset = 100, .records = 5})));
    EXPECT_EQ(seg->append(make_batch({.base_offset = 103})).code(), error_code::corrupt_message);
    EXPECT_EQ(seg->append(make_batch({.base_offset = 99})).code(), error_code::corrupt_message);
    auto torn = make_batch({.base_offset = 105});
    torn.pop_back();
    EXPECT_EQ(seg->append(torn).code(), error_code::corrupt_message);
    EXPECT_EQ(seg->next_offset(), 105);
    // A gap is allowed (compacted or follower data).
    ASSERT_TRUE(seg->append(make_batch({.base_offset = 200})));
    EXPECT_EQ(seg->next_offset(), 201);
}

TEST(log_segment, read_respects_max_bytes_max_position_and_min_one_message) {
    temp_dir dir;
    auto seg = create_segment(dir, 0);
    auto batches = fill(*seg, 4);
    int64_t bsize = int64_t(batches[0].size());
    auto r = seg->read(0, 10, -1, false);
    ASSERT_TRUE(r && *r);
    EXPECT_EQ((*r)->slice.length, 10);  // a cut batch, as Kafka returns it
    r = seg->read(0, 10, -1, true);
    ASSERT_TRUE(r && *r);
    EXPECT_EQ((*r)->slice.length, bsize);  // KIP-74: the first batch whole
    r = seg->read(3, bsize * 10, 2 * bsize, false);
    ASSERT_TRUE(r && *r);
    EXPECT_EQ((*r)->slice.position, bsize);
    EXPECT_EQ((*r)->slice.length, bsize);
    EXPECT_EQ((*r)->first_batch_offset, 3);
    r = seg->read(0, 0, -1, false);
    ASSERT_TRUE(r && *r);
    EXPECT_TRUE((*r)->slice.empty());
}

TEST(log_segment, find_offset_by_timestamp_returns_first_record_at_or_after) {
    temp_dir dir;
    auto seg = create_segment(dir, 0);
    fill(*seg, 30);  // record at offset o has timestamp 1000 + 10 * o
    auto r = seg->find_offset_by_timestamp(1000 + 10 * 47, 0);
    ASSERT_TRUE(r && *r);
    EXPECT_EQ(**r, (timestamp_offset{1000 + 10 * 47, 47}));
    r = seg->find_offset_by_timestamp(1000 + 10 * 47 - 3, 0);  // between records
    ASSERT_TRUE(r && *r);
    EXPECT_EQ(**r, (timestamp_offset{1000 + 10 * 47, 47}));
    r = seg->find_offset_by_timestamp(0, 0);
    ASSERT_TRUE(r && *r);
    EXPECT_EQ((*r)->offset, 0);
    r = seg->find_offset_by_timestamp(0, 50);  // starting offset bound
    ASSERT_TRUE(r && *r);
    EXPECT_EQ((*r)->offset, 50);
    r = seg->find_offset_by_timestamp(1000000, 0);
    ASSERT_TRUE(r);
    EXPECT_FALSE(*r);
    EXPECT_EQ(seg->max_timestamp(), 1000 + 10 * 89);
    EXPECT_EQ(seg->offset_of_max_timestamp(), 89);
}

TEST(log_segment, find_offset_by_timestamp_inside_compressed_batch) {
    temp_dir dir;
    auto seg = create_segment(dir, 0);
    ASSERT_TRUE(seg->append(make_batch({.base_offset = 0,
                                        .records = 20,
                                        .base_timestamp = 5000,
                                        .timestamp_step = 100,
                                        .codec = record::compression::gzip})));
    auto r = seg->find_offset_by_timestamp(5000 + 100 * 7 - 50, 0);
    ASSERT_TRUE(r && *r);
    EXPECT_EQ(**r, (timestamp_offset{5700, 7}));
}

TEST(log_segment, truncate_removes_the_batch_holding_the_offset_and_after) {
    temp_dir dir;
    auto seg = create_segment(dir, 0);
    auto batches = fill(*seg, 40);
    size_t entries_before = seg->index().entries();
    auto removed = seg->truncate_to(61);  // batch 60..62
    ASSERT_TRUE(removed);
    EXPECT_EQ(*removed, int64_t(batches[0].size() * 20));
    EXPECT_EQ(seg->next_offset(), 60);
    EXPECT_EQ(seg->size_bytes(), int64_t(batches[0].size() * 20));
    EXPECT_LT(seg->index().entries(), entries_before);
    EXPECT_LT(seg->index().last_entry().offset, 60);
    EXPECT_LT(seg->timeindex().last_entry().offset, 60);
    EXPECT_EQ(seg->max_timestamp(), 1000 + 10 * 59);
    EXPECT_EQ(fs::file_size(seg->log_path()), uint64_t(seg->size_bytes()));
    // Appending continues at 60.
    fill(*seg, 2);
    EXPECT_EQ(seg->next_offset(), 66);
    auto r = seg->translate_offset(64);
    ASSERT_TRUE(r && *r);
    EXPECT_EQ((*r)->header.base_offset, 63);
    // Truncating past the end removes nothing.
    EXPECT_EQ(*seg->truncate_to(1000), 0);
    int64_t size = seg->size_bytes();
    EXPECT_EQ(*seg->truncate_to(0), size);
    EXPECT_TRUE(seg->empty());
    EXPECT_EQ(seg->next_offset(), 0);
}

TEST(log_segment, close_trims_indexes_and_reopen_restores_state) {
    temp_dir dir;
    int64_t next;
    size_t entries;
    int64_t max_ts;
    {
        auto seg = create_segment(dir, 500);
        fill(*seg, 25);
        next = seg->next_offset();
        entries = seg->index().entries();
        max_ts = seg->max_timestamp();
        ASSERT_TRUE(seg->close());
    }
    EXPECT_EQ(fs::file_size(dir.file("00000000000000000500.index")), entries * 8);
    auto seg = log_segment::open(dir.path(), 500, small_config(), 0, false, false);
    ASSERT_TRUE(seg) << seg.err().message;
    EXPECT_EQ((*seg)->next_offset(), next);
    EXPECT_EQ((*seg)->index().entries(), entries);
    EXPECT_EQ((*seg)->max_timestamp(), max_ts);
    EXPECT_EQ((*seg)->timeindex().last_entry().timestamp, max_ts);
}

TEST(log_segment, recover_truncates_a_torn_last_batch) {
    temp_dir dir;
    bytes good;
    {
        auto seg = create_segment(dir, 0);
        for (auto& b : fill(*seg, 10)) {
            testing::append_to(good, b);
        }
        ASSERT_TRUE(seg->close());
    }
    {
        // Half a batch written by hand, as a crash mid-write leaves it.
        auto torn = make_batch({.base_offset = 30, .records = 3, .value_size = 40});
        std::ofstream out(dir.file("00000000000000000000.log"), std::ios::binary | std::ios::app);
        out.write(reinterpret_cast<const char*>(torn.data()), std::streamsize(torn.size() / 2));
    }
    segment_recovery rec;
    auto seg = log_segment::open(dir.path(), 0, small_config(), 0, true, true, &rec);
    ASSERT_TRUE(seg) << seg.err().message;
    EXPECT_GT(rec.truncated_bytes, 0);
    EXPECT_EQ(rec.valid_bytes, int64_t(good.size()));
    EXPECT_EQ((*seg)->next_offset(), 30);
    EXPECT_EQ(read_all(**seg, 0), good);
    EXPECT_EQ(fs::file_size(dir.file("00000000000000000000.log")), good.size());
}

TEST(log_segment, recover_truncates_a_zero_filled_tail_and_a_bad_crc) {
    temp_dir dir;
    std::vector<bytes> batches;
    {
        auto seg = create_segment(dir, 0);
        batches = fill(*seg, 10);
        ASSERT_TRUE(seg->close());
    }
    auto path = dir.file("00000000000000000000.log");
    {
        std::ofstream out(path, std::ios::binary | std::ios::app);
        out << std::string(4096, '\0');
    }
    segment_recovery rec;
    auto seg = log_segment::open(dir.path(), 0, small_config(), 0, true, true, &rec);
    ASSERT_TRUE(seg);
    EXPECT_EQ(rec.truncated_bytes, 4096);
    EXPECT_EQ((*seg)->next_offset(), 30);
    ASSERT_TRUE((*seg)->close());
    // Flip one byte inside batch 6: batches 6.. go.
    {
        int fd = ::open(path.c_str(), O_RDWR);
        uint8_t x = 0x5a;
        ASSERT_EQ(::pwrite(fd, &x, 1, off_t(batches[0].size() * 6 + 70)), 1);
        ::close(fd);
    }
    seg = log_segment::open(dir.path(), 0, small_config(), 0, true, true, &rec);
    ASSERT_TRUE(seg);
    EXPECT_EQ((*seg)->next_offset(), 18);
    EXPECT_EQ((*seg)->size_bytes(), int64_t(batches[0].size() * 6));
    EXPECT_NE(rec.reason.find("CRC"), std::string::npos);
}

TEST(log_segment, corrupt_truncated_or_missing_index_is_rebuilt) {
    temp_dir dir;
    size_t entries;
    {
        auto seg = create_segment(dir, 0);
        fill(*seg, 30);
        entries = seg->index().entries();
        ASSERT_GT(entries, 3u);
        ASSERT_TRUE(seg->close());
    }
    auto index_path = dir.file("00000000000000000000.index");
    auto check = [&] {
        auto seg = log_segment::open(dir.path(), 0, small_config(), 0, false, false);
        ASSERT_TRUE(seg) << seg.err().message;
        EXPECT_EQ((*seg)->index().entries(), entries);
        EXPECT_EQ((*seg)->next_offset(), 90);
        auto loc = (*seg)->translate_offset(77);
        ASSERT_TRUE(loc && *loc);
        EXPECT_EQ((*loc)->header.base_offset, 75);
        ASSERT_TRUE((*seg)->close());
    };
    fs::resize_file(index_path, 8 * 3 + 5);  // truncated mid-entry
    check();
    {
        std::fstream f(index_path, std::ios::binary | std::ios::in | std::ios::out);
        f.seekp(8);
        f.write("\xff\xff\xff\x7f\xff\xff\xff\x7f", 8);  // an entry past the log
    }
    check();
    fs::remove(index_path);
    check();
    fs::remove(dir.file("00000000000000000000.timeindex"));
    check();
}

TEST(log_segment, should_roll_on_size_time_and_full_index) {
    temp_dir dir;
    log_config c = small_config();
    c.segment_bytes = 2000;
    c.segment_ms = 1000;
    auto seg = create_segment(dir, 0, c);
    EXPECT_FALSE(seg->should_roll(c, 100, 5000, 0, 0));
    auto b =
        make_batch({.base_offset = 0, .records = 1, .value_size = 900, .base_timestamp = 5000});
    ASSERT_TRUE(seg->append(b));
    EXPECT_FALSE(seg->should_roll(c, int64_t(b.size()), 5000, 1, 0));
    EXPECT_TRUE(seg->should_roll(c, int64_t(b.size()) + 200, 5000, 1, 0));  // size
    EXPECT_FALSE(seg->should_roll(c, 10, 6000, 1, 0));  // 1000 ms after the first batch
    EXPECT_TRUE(seg->should_roll(c, 10, 6001, 1, 0));   // time, by record timestamps
    EXPECT_TRUE(seg->should_roll(c, 10, 5000, int64_t(1) << 33, 0));  // relative offset
    // Jitter only ever rolls earlier.
    c.segment_jitter_ms = 500;
    auto jittered = create_segment(dir, 100, c);
    EXPECT_GE(jittered->roll_jitter_ms(), 0);
    EXPECT_LT(jittered->roll_jitter_ms(), 500);
    // A full index rolls.
    log_config tiny = small_config();
    tiny.segment_index_bytes = 16;
    tiny.index_interval_bytes = 0;
    auto seg2 = create_segment(dir, 1000, tiny);
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(seg2->append(make_batch({.base_offset = 1000 + i})));
    }
    EXPECT_TRUE(seg2->should_roll(tiny, 10, 1000, 1003, 0));
}

TEST(log_segment, time_based_roll_without_timestamps_uses_creation_time) {
    temp_dir dir;
    log_config c = small_config();
    c.segment_ms = 1000;
    auto s = log_segment::create(dir.path(), 0, c, 10000);
    ASSERT_TRUE(s);
    ASSERT_TRUE(
        (*s)->append(make_batch({.base_offset = 0, .base_timestamp = -1, .timestamp_step = 0})));
    EXPECT_FALSE((*s)->should_roll(c, 10, -1, 1, 11000));
    EXPECT_TRUE((*s)->should_roll(c, 10, -1, 1, 11001));
}

TEST(log_segment, deleted_segment_stays_readable_through_an_open_slice) {
    temp_dir dir;
    auto seg = create_segment(dir, 0);
    auto batches = fill(*seg, 3);
    auto r = seg->read(0, 1 << 20, -1, false);
    ASSERT_TRUE(r && *r);
    file_slice slice = (*r)->slice;
    ASSERT_TRUE(seg->rename_to_deleted());
    EXPECT_TRUE(fs::exists(dir.file("00000000000000000000.log.deleted")));
    EXPECT_TRUE(fs::exists(dir.file("00000000000000000000.index.deleted")));
    EXPECT_TRUE(fs::exists(dir.file("00000000000000000000.timeindex.deleted")));
    ASSERT_TRUE(seg->delete_files());
    seg.reset();
    EXPECT_TRUE(fs::is_empty(dir.path()));
    auto bytes_read = slice.read();
    ASSERT_TRUE(bytes_read);
    EXPECT_EQ(bytes_read->size(), batches[0].size() * 3);
}

TEST(log_segment, flush_from_another_thread_while_appending) {
    temp_dir dir;
    auto seg = create_segment(dir, 0);
    std::atomic<bool> done{false};
    std::thread flusher([&] {
        while (!done) {
            ASSERT_TRUE(seg->flush());
        }
    });
    fill(*seg, 200);
    done = true;
    flusher.join();
    EXPECT_EQ(seg->next_offset(), 600);
    ASSERT_TRUE(seg->close());
    EXPECT_TRUE(seg->flush());  // after close: nothing to do, no crash
}

}  // namespace
}  // namespace samsa::storage
