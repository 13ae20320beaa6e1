#include "record/batch_iterator.h"

#include <gtest/gtest.h>

#include <random>

#include "batch_test_util.h"

namespace samsa::record {
namespace {

using test::fix_crc;
using test::make_batch;

bytes three_batches() {
    bytes out;
    for (int i = 0; i < 3; ++i) {
        batch_options o;
        o.base_offset = i * 10;
        bytes b = make_batch(i + 1, o);
        out.insert(out.end(), b.begin(), b.end());
    }
    return out;
}

TEST(batch_iterator, yields_each_whole_batch_then_stops_at_end) {
    bytes range = three_batches();
    batch_iterator it(range);
    size_t expected_pos = 0;
    for (int i = 0; i < 3; ++i) {
        auto b = it.next();
        ASSERT_TRUE(b);
        EXPECT_EQ(b->header.base_offset, i * 10);
        EXPECT_EQ(b->header.records_count, i + 1);
        EXPECT_EQ(b->position, expected_pos);
        EXPECT_EQ(b->data.size(), b->header.size_bytes());
        EXPECT_EQ(b->data.data(), range.data() + expected_pos);
        expected_pos += b->data.size();
    }
    EXPECT_FALSE(it.next());
    EXPECT_EQ(it.stop(), batch_stop::end);
    EXPECT_EQ(it.position(), range.size());
    EXPECT_FALSE(it.next());  // stays stopped
}

TEST(batch_iterator, empty_range_ends_at_once) {
    batch_iterator it(bytes_view{});
    EXPECT_FALSE(it.next());
    EXPECT_EQ(it.stop(), batch_stop::end);
}

TEST(batch_iterator, stops_at_truncated_tail_and_reports_the_valid_prefix) {
    bytes range = three_batches();
    size_t first_two = range.size() - make_batch(3).size();
    // Cut inside the length field, before the magic, and inside the records.
    for (size_t cut : {size_t(5), size_t(14), size_t(40)}) {
        bytes t(range.begin(), range.begin() + ptrdiff_t(first_two + cut));
        batch_iterator it(t);
        int n = 0;
        while (it.next()) {
            ++n;
        }
        EXPECT_EQ(n, 2) << "cut " << cut;
        EXPECT_EQ(it.stop(), batch_stop::truncated) << "cut " << cut;
        EXPECT_EQ(it.position(), first_two);
    }
}

TEST(batch_iterator, reports_length_below_header_size_as_corrupt) {
    bytes b = make_batch(1);
    store_be32(b.data() + 8, 48);
    batch_iterator it(b);
    EXPECT_FALSE(it.next());
    EXPECT_EQ(it.stop(), batch_stop::corrupt);
    EXPECT_EQ(it.stop_error().code, error_code::corrupt_message);
    EXPECT_EQ(it.position(), 0u);
}

TEST(batch_iterator, reports_negative_length_as_corrupt_even_when_truncated) {
    bytes b = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe};
    batch_iterator it(b);
    EXPECT_FALSE(it.next());
    EXPECT_EQ(it.stop(), batch_stop::corrupt);
}

TEST(batch_iterator, reports_length_above_maximum_as_corrupt) {
    bytes b = make_batch(10);
    batch_iterator it(b, {.max_batch_size = b.size() - 1, .verify_crc = false});
    EXPECT_FALSE(it.next());
    EXPECT_EQ(it.stop(), batch_stop::corrupt);
    batch_iterator ok(b, {.max_batch_size = b.size(), .verify_crc = false});
    EXPECT_TRUE(ok.next());
}

TEST(batch_iterator, reports_wrong_magic_as_corrupt) {
    bytes range = three_batches();
    size_t second = make_batch(1).size();
    range[second + magic_offset] = 1;
    batch_iterator it(range);
    EXPECT_TRUE(it.next());
    EXPECT_FALSE(it.next());
    EXPECT_EQ(it.stop(), batch_stop::corrupt);
    EXPECT_EQ(it.position(), second);
}

TEST(batch_iterator, checks_crc_only_when_asked) {
    bytes b = make_batch(3);
    b[b.size() - 1] ^= 1;
    batch_iterator lax(b);
    EXPECT_TRUE(lax.next());
    batch_iterator strict(b, {.max_batch_size = 1 << 20, .verify_crc = true});
    EXPECT_FALSE(strict.next());
    EXPECT_EQ(strict.stop(), batch_stop::corrupt);
    EXPECT_NE(strict.stop_error().message.find("crc"), std::string::npos);
}

TEST(batch_iterator, leader_epoch_and_base_offset_changes_keep_crc_valid) {
    bytes b = make_batch(3);
    store_be64(b.data(), 999);
    store_be32(b.data() + partition_leader_epoch_offset, 5);
    batch_iterator it(b, {.max_batch_size = 1 << 20, .verify_crc = true});
    EXPECT_TRUE(it.next());
}

// ---- record_iterator ----------------------------------------------------------

TEST(record_iterator, rejects_batch_declaring_more_records_than_it_holds) {
    bytes b = make_batch(3);
    store_be32(b.data() + 57, 4);
    fix_crc(b);
    auto it = record_iterator::open(b);
    ASSERT_TRUE(it);
    record r;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(it->next(r));
    }
    auto last = it->next(r);
    ASSERT_FALSE(last);
    EXPECT_EQ(last.code(), error_code::invalid_record);
}

TEST(record_iterator, rejects_batch_declaring_fewer_records_than_it_holds) {
    bytes b = make_batch(3);
    store_be32(b.data() + 57, 2);
    auto it = record_iterator::open(b);
    ASSERT_TRUE(it);
    record r;
    ASSERT_TRUE(it->next(r));
    auto second = it->next(r);
    ASSERT_FALSE(second);
    EXPECT_EQ(second.code(), error_code::invalid_record);
}

TEST(record_iterator, rejects_negative_record_count) {
    bytes b = make_batch(1);
    store_be32(b.data() + 57, uint32_t(-1));
    EXPECT_EQ(record_iterator::open(b).code(), error_code::invalid_record);
}

TEST(record_iterator, rejects_huge_record_count_without_reading_past_the_batch) {
    bytes b = make_batch(1);
    store_be32(b.data() + 57, 0x7fffffff);
    auto it = record_iterator::open(b);
    ASSERT_TRUE(it);
    record r;
    ASSERT_TRUE(it->next(r));
    EXPECT_EQ(it->next(r).code(), error_code::invalid_record);
}

TEST(record_iterator, rejects_unknown_codec) {
    bytes b = make_batch(1);
    for (uint8_t codec = 5; codec <= 7; ++codec) {
        b[22] = codec;
        EXPECT_EQ(record_iterator::open(b).code(), error_code::unsupported_compression_type);
    }
}

TEST(record_iterator, rejects_bytes_that_are_not_one_whole_batch) {
    bytes b = make_batch(2);
    bytes longer = b;
    longer.push_back(0);
    EXPECT_EQ(record_iterator::open(longer).code(), error_code::corrupt_message);
    bytes shorter(b.begin(), b.end() - 1);
    EXPECT_EQ(record_iterator::open(shorter).code(), error_code::corrupt_message);
    bytes header_only(b.begin(), b.begin() + 60);
    EXPECT_EQ(record_iterator::open(header_only).code(), error_code::corrupt_message);
    b[magic_offset] = 1;
    EXPECT_EQ(record_iterator::open(b).code(), error_code::corrupt_message);
}

TEST(record_iterator, bounds_decompression_of_compressed_records) {
    batch_options o;
    o.codec = compression::zstd;
    std::string big(1 << 20, 'z');
    batch_builder bb(o);
    bb.add(1, std::nullopt, as_bytes_view(big));
    bytes b = std::move(bb.build()).value();
    EXPECT_LT(b.size(), 1000u);
    EXPECT_EQ(record_iterator::open(b, 1 << 16).code(), error_code::corrupt_message);
    EXPECT_TRUE(record_iterator::open(b, 2 << 20));
}

TEST(record_iterator, records_stay_valid_after_the_iterator_moves) {
    batch_options o;
    o.codec = compression::gzip;
    bytes b = make_batch(2, o);
    auto opened = record_iterator::open(b);
    ASSERT_TRUE(opened);
    record_iterator it = std::move(opened).value();
    record r;
    ASSERT_TRUE(*it.next(r));
    record_iterator moved = std::move(it);
    EXPECT_EQ(test::str(r.value), "v0");
    ASSERT_TRUE(*moved.next(r));
    EXPECT_EQ(test::str(r.value), "v1");
}

TEST(record_iterator, reads_an_empty_compressed_batch_as_empty) {
    bytes b = test::make_batch(0);
    b[22] = uint8_t(compression::zstd);
    auto it = record_iterator::open(b);
    ASSERT_TRUE(it) << it.err().message;
    record r;
    EXPECT_FALSE(*it->next(r));
}

// Random corruption of valid batches must only ever produce error values.
TEST(record_iterator, survives_random_corruption) {
    std::mt19937 rng(12345);
    for (int codec = 0; codec <= 4; ++codec) {
        batch_options o;
        o.codec = compression(codec);
        const bytes good = make_batch(20, o);
        for (int round = 0; round < 300; ++round) {
            bytes b = good;
            int flips = 1 + int(rng() % 4);
            for (int f = 0; f < flips; ++f) {
                size_t at = log_overhead + rng() % (b.size() - log_overhead);
                b[at] = uint8_t(rng());
            }
            batch_iterator bi(b, {.max_batch_size = 1 << 20, .verify_crc = false});
            while (auto v = bi.next()) {
                auto it = record_iterator::open(v->data, 1 << 20);
                if (!it) {
                    continue;
                }
                record r;
                for (int i = 0; i < 100000; ++i) {
                    auto more = it->next(r);
                    if (!more || !*more) {
                        break;
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace samsa::record
