#include "record/batch_builder.h"

#include <gtest/gtest.h>

#include "batch_test_util.h"
#include "record/control_record.h"

namespace samsa::record {
namespace {

using test::header_of;
using test::make_batch;
using test::read_all;

bytes concat(std::initializer_list<bytes> parts) {
    bytes out;
    for (const auto& p : parts) {
        out.insert(out.end(), p.begin(), p.end());
    }
    return out;
}

TEST(batch_builder, matches_a_batch_built_by_hand_byte_for_byte) {
    const int64_t ts = 1700000000000;  // 0x0000018BCFE56800
    const bytes ts_be = {0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00};
    bytes expected = concat({
        {0, 0, 0, 0, 0, 0, 0, 0},  // base_offset 0
        {0, 0, 0, 68},             // batch_length: 49 header bytes after it + 19 record bytes
        {0xff, 0xff, 0xff, 0xff},  // partition_leader_epoch -1
        {2},                       // magic
        {0x83, 0x79, 0x4a, 0x1d},  // CRC32C of bytes 21..end, computed independently
        {0, 0},                    // attributes: no codec, CreateTime
        {0, 0, 0, 0},              // last_offset_delta
        ts_be,                     // base_timestamp
        ts_be,                     // max_timestamp
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},  // producer_id -1
        {0xff, 0xff},                                      // producer_epoch -1
        {0xff, 0xff, 0xff, 0xff},                          // base_sequence -1
        {0, 0, 0, 1},                                      // records_count
        // record: length 18 (zigzag 0x24), attributes, timestamp delta 0, offset delta 0,
        // key length 3 (zigzag 6) "key", value length 5 (zigzag 10) "value",
        // 1 header (zigzag 2): key length 1 "h", value length 1 "v".
        {0x24, 0x00, 0x00, 0x00, 0x06, 'k', 'e', 'y', 0x0a, 'v', 'a', 'l', 'u', 'e', 0x02, 0x02,
         'h', 0x02, 'v'},
    });
    ASSERT_EQ(expected.size(), 80u);

    record_header h{"h", as_bytes_view("v")};
    batch_builder b;
    b.add(ts, as_bytes_view("key"), as_bytes_view("value"), std::span(&h, 1));
    auto built = b.build();
    ASSERT_TRUE(built);
    EXPECT_EQ(*built, expected);
}

TEST(batch_builder, writes_header_fields_from_options_and_records) {
    batch_options o;
    o.base_offset = 100;
    o.partition_leader_epoch = 7;
    o.producer_id = 42;
    o.producer_epoch = 3;
    o.base_sequence = 9;
    o.transactional = true;
    bytes batch = make_batch(3, o, 5000);
    batch_header h = header_of(batch);
    EXPECT_EQ(h.base_offset, 100);
    EXPECT_EQ(h.partition_leader_epoch, 7);
    EXPECT_EQ(h.size_bytes(), batch.size());
    EXPECT_EQ(h.last_offset_delta, 2);
    EXPECT_EQ(h.last_offset(), 102);
    EXPECT_EQ(h.base_timestamp, 5000);
    EXPECT_EQ(h.max_timestamp, 5002);
    EXPECT_EQ(h.producer_id, 42);
    EXPECT_EQ(h.producer_epoch, 3);
    EXPECT_EQ(h.base_sequence, 9);
    EXPECT_EQ(h.records_count, 3);
    EXPECT_TRUE(h.is_transactional());
    EXPECT_FALSE(h.is_control());
    EXPECT_EQ(h.compression(), compression::none);
    EXPECT_EQ(h.crc, crc32c(batch.data() + 21, batch.size() - 21));
}

TEST(batch_builder, takes_max_timestamp_over_unordered_records) {
    batch_builder b;
    b.add(50, std::nullopt, std::nullopt).add(90, std::nullopt, std::nullopt);
    b.add(10, std::nullopt, std::nullopt);
    auto batch = b.build();
    ASSERT_TRUE(batch);
    EXPECT_EQ(header_of(*batch).base_timestamp, 50);
    EXPECT_EQ(header_of(*batch).max_timestamp, 90);
    auto recs = read_all(*batch);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[2].timestamp, 10);  // negative delta
}

TEST(batch_builder, log_append_time_batch_reports_append_time_for_every_record) {
    batch_options o;
    o.timestamp_type = timestamp_type::log_append_time;
    o.log_append_time = 777;
    bytes batch = make_batch(2, o, 5);
    EXPECT_EQ(header_of(batch).timestamp_type(), timestamp_type::log_append_time);
    EXPECT_EQ(header_of(batch).max_timestamp, 777);
    for (const auto& r : read_all(batch)) {
        EXPECT_EQ(r.timestamp, 777);
    }
}

class builder_codec_test : public ::testing::TestWithParam<compression> {};

TEST_P(builder_codec_test, round_trips_records_through_each_codec) {
    batch_options o;
    o.codec = GetParam();
    o.base_offset = 10;
    bytes batch = make_batch(500, o);
    EXPECT_EQ(header_of(batch).compression(), GetParam());
    auto recs = read_all(batch);
    ASSERT_EQ(recs.size(), 500u);
    for (size_t i = 0; i < recs.size(); ++i) {
        EXPECT_EQ(recs[i].offset, int64_t(10 + i));
        EXPECT_EQ(recs[i].timestamp, int64_t(1000 + i));
        EXPECT_EQ(recs[i].key, "k" + std::to_string(i));
        EXPECT_EQ(recs[i].value, "v" + std::to_string(i));
    }
}

TEST_P(builder_codec_test, recompresses_to_every_other_codec) {
    batch_options o;
    o.codec = GetParam();
    bytes batch = make_batch(50, o);
    for (int target = 0; target <= 4; ++target) {
        auto re = recompress_batch(batch, compression(target));
        ASSERT_TRUE(re) << re.err().message;
        EXPECT_EQ(header_of(*re).compression(), compression(target));
        EXPECT_EQ(header_of(*re).size_bytes(), re->size());
        EXPECT_EQ(header_of(*re).records_count, 50);
        EXPECT_EQ(header_of(*re).crc, crc32c(re->data() + 21, re->size() - 21));
        auto recs = read_all(*re);
        ASSERT_EQ(recs.size(), 50u);
        EXPECT_EQ(recs[49].value, "v49");
    }
}

INSTANTIATE_TEST_SUITE_P(all, builder_codec_test,
                         ::testing::Values(compression::none, compression::gzip,
                                           compression::snappy, compression::lz4,
                                           compression::zstd),
                         [](const auto& info) {
                             return std::string(compression_name(info.param));
                         });

TEST(batch_builder, keeps_explicit_offset_deltas_and_last_offset_delta) {
    batch_options o;
    o.last_offset_delta = 9;
    batch_builder b(o);
    b.add(record_input{1, std::nullopt, as_bytes_view("a"), {}, 2});
    b.add(2, std::nullopt, as_bytes_view("b"));
    b.add(record_input{3, std::nullopt, as_bytes_view("c"), {}, 7});
    auto batch = b.build();
    ASSERT_TRUE(batch);
    EXPECT_EQ(header_of(*batch).last_offset_delta, 9);
    auto recs = read_all(*batch);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[0].offset, 2);
    EXPECT_EQ(recs[1].offset, 3);
    EXPECT_EQ(recs[2].offset, 7);
}

TEST(batch_builder, delete_horizon_becomes_base_timestamp) {
    batch_options o;
    o.delete_horizon = 123456;
    bytes batch = make_batch(2, o, 200000);
    batch_header h = header_of(batch);
    EXPECT_TRUE(h.has_delete_horizon());
    EXPECT_EQ(h.base_timestamp, 123456);
    auto recs = read_all(batch);
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].timestamp, 200000);
}

TEST(batch_builder, builds_an_empty_batch) {
    batch_builder b;
    auto batch = b.build();
    ASSERT_TRUE(batch);
    EXPECT_EQ(batch->size(), batch_header_size);
    EXPECT_EQ(header_of(*batch).records_count, 0);
    EXPECT_TRUE(read_all(*batch).empty());
}

TEST(batch_builder, rejects_invalid_compression_level) {
    batch_options o;
    o.codec = compression::zstd;
    o.compression_level = 1000;
    batch_builder b(o);
    b.add(1, std::nullopt, std::nullopt);
    EXPECT_EQ(b.build().code(), error_code::invalid_config);
}

TEST(set_log_append_time, rewrites_max_timestamp_and_type_and_keeps_crc_valid) {
    bytes batch = make_batch(3);
    ASSERT_TRUE(set_log_append_time(batch, 99999));
    batch_header h = header_of(batch);
    EXPECT_EQ(h.timestamp_type(), timestamp_type::log_append_time);
    EXPECT_EQ(h.max_timestamp, 99999);
    EXPECT_EQ(h.base_timestamp, 1000);  // untouched, as Kafka leaves it
    EXPECT_EQ(h.crc, crc32c(batch.data() + 21, batch.size() - 21));
    for (const auto& r : read_all(batch)) {
        EXPECT_EQ(r.timestamp, 99999);
    }
}

TEST(set_max_timestamp, leaves_batch_alone_when_nothing_changes) {
    bytes batch = make_batch(3);
    bytes before = batch;
    ASSERT_TRUE(set_max_timestamp(batch, timestamp_type::create_time, 1002));
    EXPECT_EQ(batch, before);
    ASSERT_TRUE(set_max_timestamp(batch, timestamp_type::create_time, 5000));
    EXPECT_EQ(header_of(batch).max_timestamp, 5000);
    EXPECT_EQ(header_of(batch).crc, crc32c(batch.data() + 21, batch.size() - 21));
}

TEST(set_max_timestamp, rejects_bytes_that_are_not_one_whole_batch) {
    bytes batch = make_batch(1);
    bytes shorter(batch.begin(), batch.end() - 1);
    EXPECT_EQ(set_log_append_time(shorter, 1).code(), error_code::corrupt_message);
    bytes tiny(10);
    EXPECT_EQ(set_log_append_time(tiny, 1).code(), error_code::corrupt_message);
}

TEST(stamp_base_offset_and_epoch, writes_both_fields_without_touching_crc) {
    bytes batch = make_batch(2);
    uint32_t crc = header_of(batch).crc;
    ASSERT_TRUE(stamp_base_offset_and_epoch(batch, 1234567, 42));
    batch_header h = header_of(batch);
    EXPECT_EQ(h.base_offset, 1234567);
    EXPECT_EQ(h.partition_leader_epoch, 42);
    EXPECT_EQ(h.crc, crc);
    EXPECT_EQ(crc, crc32c(batch.data() + 21, batch.size() - 21));
    bytes tiny(20);
    EXPECT_EQ(stamp_base_offset_and_epoch(tiny, 1, 1).code(), error_code::corrupt_message);
}

TEST(control_record, builds_and_parses_end_transaction_markers) {
    bytes batch =
        build_end_txn_marker_batch(77, 4, {.commit = true, .coordinator_epoch = 12}, 5555);
    batch_header h = header_of(batch);
    EXPECT_TRUE(h.is_control());
    EXPECT_TRUE(h.is_transactional());
    EXPECT_EQ(h.producer_id, 77);
    EXPECT_EQ(h.producer_epoch, 4);
    EXPECT_EQ(h.base_sequence, no_sequence);
    EXPECT_EQ(h.records_count, 1);
    auto it = record_iterator::open(batch);
    ASSERT_TRUE(it);
    record r;
    ASSERT_TRUE(*it->next(r));
    // key: version 0, type 1 (COMMIT); value: version 0, coordinator epoch 12.
    EXPECT_EQ(test::str(r.key), std::string("\0\0\0\1", 4));
    EXPECT_EQ(test::str(r.value), std::string("\0\0\0\0\0\x0c", 6));
    auto m = parse_end_txn_marker(r);
    ASSERT_TRUE(m);
    EXPECT_TRUE(m->commit);
    EXPECT_EQ(m->coordinator_epoch, 12);
}

TEST(control_record, rejects_short_keys_and_values) {
    bytes short_key = {0, 0, 0};
    EXPECT_EQ(parse_control_record_key(bytes_view(short_key)).code(), error_code::invalid_record);
    EXPECT_EQ(parse_control_record_key(std::nullopt).code(), error_code::invalid_record);
    bytes key = encode_control_record_key(control_record_type::abort);
    bytes short_value = {0, 0, 0};
    record r;
    r.key = bytes_view(key);
    r.value = bytes_view(short_value);
    EXPECT_EQ(parse_end_txn_marker(r).code(), error_code::invalid_record);
    bytes unknown = {0, 0, 0x7f, 0};
    EXPECT_EQ(*parse_control_record_key(bytes_view(unknown)), control_record_type::unknown);
}

}  // namespace
}  // namespace samsa::record
