#include "record/batch_validator.h"

#include <gtest/gtest.h>

#include "batch_test_util.h"
#include "record/control_record.h"

namespace samsa::record {
namespace {

using test::fix_crc;
using test::make_batch;

constexpr int64_t now = 1'700'000'000'000;

validation_options client_options() {
    validation_options o;
    o.now_ms = now;
    o.topic_partition = "orders-0";
    return o;
}

TEST(validate_batch, accepts_valid_client_batch_with_every_codec) {
    for (int codec = 0; codec <= 4; ++codec) {
        batch_options bo;
        bo.codec = compression(codec);
        bytes b = make_batch(10, bo, now - 100);
        auto v = validate_batch(b, client_options());
        EXPECT_TRUE(v.ok()) << codec << ": " << v.error.message;
        EXPECT_EQ(v.max_timestamp, now - 91);
        EXPECT_EQ(v.offset_delta_of_max_timestamp, 9);
        EXPECT_EQ(v.header.records_count, 10);
    }
}

TEST(validate_batch, rejects_batch_shorter_than_header) {
    bytes b = make_batch(1);
    bytes short_b(b.begin(), b.begin() + 40);
    store_be32(short_b.data() + 8, 28);
    EXPECT_EQ(validate_batch(short_b, client_options()).code(), error_code::corrupt_message);
    bytes tiny = {1, 2, 3};
    EXPECT_EQ(validate_batch(tiny, client_options()).code(), error_code::corrupt_message);
}

TEST(validate_batch, rejects_batch_length_inconsistent_with_bytes) {
    bytes b = make_batch(2);
    store_be32(b.data() + 8, uint32_t(b.size()));  // 12 bytes too long
    EXPECT_EQ(validate_batch(b, client_options()).code(), error_code::corrupt_message);
    store_be32(b.data() + 8, uint32_t(-5));
    EXPECT_EQ(validate_batch(b, client_options()).code(), error_code::corrupt_message);
}

TEST(validate_batch, rejects_magic_other_than_two) {
    bytes b = make_batch(1);
    b[magic_offset] = 1;
    EXPECT_EQ(validate_batch(b, client_options()).code(), error_code::corrupt_message);
}

TEST(validate_batch, rejects_client_batch_with_nonzero_base_offset) {
    batch_options bo;
    bo.base_offset = 5;
    bytes b = make_batch(1, bo, now);
    auto v = validate_batch(b, client_options());
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_NE(v.error.message.find("should be 0, but it is 5"), std::string::npos);
    auto o = client_options();
    o.origin = append_origin::replication;
    EXPECT_TRUE(validate_batch(b, o).ok());
}

TEST(validate_batch, rejects_batch_over_max_message_bytes) {
    bytes b = make_batch(20, {}, now);
    auto o = client_options();
    o.max_message_bytes = int32_t(b.size()) - 1;
    auto v = validate_batch(b, o);
    EXPECT_EQ(v.code(), error_code::message_too_large);
    o.max_message_bytes = int32_t(b.size());
    EXPECT_TRUE(validate_batch(b, o).ok());
    o.max_message_bytes = 10;
    o.origin = append_origin::replication;
    EXPECT_TRUE(validate_batch(b, o).ok());
}

TEST(validate_batch, rejects_batch_with_bad_crc) {
    for (size_t at : {size_t(21), size_t(40), size_t(70)}) {
        bytes b = make_batch(3, {}, now);
        b[at] ^= 0x10;
        auto v = validate_batch(b, client_options());
        EXPECT_EQ(v.code(), error_code::corrupt_message) << at;
        EXPECT_NE(v.error.message.find("Record is corrupt"), std::string::npos);
        EXPECT_FALSE(check_batch_integrity(b));
    }
}

TEST(validate_batch, rejects_codec_ids_five_to_seven) {
    for (uint8_t codec = 5; codec <= 7; ++codec) {
        bytes b = make_batch(1, {}, now);
        b[22] = codec;
        fix_crc(b);
        EXPECT_EQ(validate_batch(b, client_options()).code(),
                  error_code::unsupported_compression_type);
    }
}

TEST(validate_batch, rejects_invalid_offset_range) {
    bytes b = make_batch(1, {}, now);
    store_be32(b.data() + 23, uint32_t(-1));
    fix_crc(b);
    auto v = validate_batch(b, client_options());
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_NE(v.error.message.find("invalid offset range"), std::string::npos);
}

TEST(validate_batch, rejects_client_batch_with_no_records) {
    bytes b = make_batch(0);
    auto v = validate_batch(b, client_options());
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_NE(v.error.message.find("Invalid reported count"), std::string::npos);
}

TEST(validate_batch, rejects_count_inconsistent_with_last_offset_delta) {
    bytes b = make_batch(3, {}, now);
    store_be32(b.data() + 23, 5);
    fix_crc(b);
    auto v = validate_batch(b, client_options());
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_NE(v.error.message.find("Inconsistent batch offset range"), std::string::npos);
}

TEST(validate_batch, rejects_records_count_larger_than_records) {
    bytes b = make_batch(3, {}, now);
    store_be32(b.data() + 23, 3);
    store_be32(b.data() + 57, 4);
    fix_crc(b);
    EXPECT_EQ(validate_batch(b, client_options()).code(), error_code::invalid_record);
}

TEST(validate_batch, rejects_records_count_smaller_than_records) {
    bytes b = make_batch(3, {}, now);
    store_be32(b.data() + 23, 1);
    store_be32(b.data() + 57, 2);
    fix_crc(b);
    auto v = validate_batch(b, client_options());
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_NE(v.error.message.find("records still remaining"), std::string::npos);
}

TEST(validate_batch, rejects_negative_records_count_from_coordinator) {
    bytes b = make_batch(1, {}, now);
    store_be32(b.data() + 57, uint32_t(-3));
    fix_crc(b);
    auto o = client_options();
    o.origin = append_origin::coordinator;
    EXPECT_EQ(validate_batch(b, o).code(), error_code::invalid_record);
}

TEST(validate_batch, rejects_control_batch_from_client_but_accepts_it_from_coordinator) {
    bytes b = build_end_txn_marker_batch(5, 1, {.commit = false, .coordinator_epoch = 3}, now);
    auto v = validate_batch(b, client_options());
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_NE(v.error.message.find("control records"), std::string::npos);
    auto o = client_options();
    o.origin = append_origin::coordinator;
    EXPECT_TRUE(validate_batch(b, o).ok());
}

TEST(validate_batch, rejects_control_record_without_control_key) {
    batch_options bo;
    bo.control = true;
    bo.transactional = true;
    bo.producer_id = 1;
    bo.producer_epoch = 0;
    bytes short_key = {0, 0};
    batch_builder bb(bo);
    bb.add(now, bytes_view(short_key), std::nullopt);
    bytes b = std::move(bb.build()).value();
    auto o = client_options();
    o.origin = append_origin::coordinator;
    EXPECT_EQ(validate_batch(b, o).code(), error_code::invalid_record);
}

TEST(validate_batch, rejects_producer_id_without_sequence) {
    batch_options bo;
    bo.producer_id = 9;
    bo.producer_epoch = 0;
    bo.base_sequence = -1;
    bytes b = make_batch(1, bo, now);
    auto v = validate_batch(b, client_options());
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_NE(v.error.message.find("Invalid sequence number"), std::string::npos);
    bo.base_sequence = 0;
    EXPECT_TRUE(validate_batch(make_batch(1, bo, now), client_options()).ok());
}

TEST(validate_batch, rejects_transactional_batch_without_producer_id) {
    batch_options bo;
    bo.transactional = true;
    auto v = validate_batch(make_batch(2, bo, now), client_options());
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_NE(v.error.message.find("without a producer id"), std::string::npos) << v.error.message;
    bo.producer_id = 9;
    bo.producer_epoch = 0;
    bo.base_sequence = 0;
    EXPECT_TRUE(validate_batch(make_batch(2, bo, now), client_options()).ok());
}

TEST(validate_batch, rejects_lz4_batch_with_bytes_after_the_frame) {
    batch_options bo;
    bo.codec = compression::lz4;
    bytes b = make_batch(3, bo, now);
    ASSERT_TRUE(validate_batch(b, client_options()).ok());
    // Two bytes of garbage inside the records section: the batch length and
    // CRC cover them, so only the codec can tell.
    b.push_back(0xde);
    b.push_back(0xad);
    store_be32(b.data() + 8, uint32_t(b.size() - 12));
    fix_crc(b);
    auto v = validate_batch(b, client_options());
    EXPECT_EQ(v.code(), error_code::corrupt_message) << v.error.message;
}

TEST(validate_batch, rejects_client_offset_deltas_out_of_sequence) {
    batch_options bo;
    bo.last_offset_delta = 2;
    batch_builder bb(bo);
    bb.add(record_input{now, as_bytes_view("a"), as_bytes_view("1"), {}, 0});
    bb.add(record_input{now, as_bytes_view("b"), as_bytes_view("2"), {}, 2});
    bb.add(record_input{now, as_bytes_view("c"), as_bytes_view("3"), {}, 1});
    bytes b = std::move(bb.build()).value();
    EXPECT_EQ(validate_batch(b, client_options()).code(), error_code::invalid_record);
}

TEST(validate_batch, accepts_compacted_gaps_from_coordinator_but_not_decreasing_deltas) {
    batch_options bo;
    bo.last_offset_delta = 9;
    batch_builder gaps(bo);
    gaps.add(record_input{now, as_bytes_view("a"), std::nullopt, {}, 1});
    gaps.add(record_input{now, as_bytes_view("b"), std::nullopt, {}, 9});
    auto o = client_options();
    o.origin = append_origin::coordinator;
    EXPECT_TRUE(validate_batch(std::move(gaps.build()).value(), o).ok());

    batch_builder backwards(bo);
    backwards.add(record_input{now, as_bytes_view("a"), std::nullopt, {}, 5});
    backwards.add(record_input{now, as_bytes_view("b"), std::nullopt, {}, 5});
    EXPECT_EQ(validate_batch(std::move(backwards.build()).value(), o).code(),
              error_code::invalid_record);

    batch_builder beyond(bo);
    beyond.add(record_input{now, as_bytes_view("a"), std::nullopt, {}, 10});
    EXPECT_EQ(validate_batch(std::move(beyond.build()).value(), o).code(),
              error_code::invalid_record);
}

TEST(validate_batch, rejects_keyless_records_on_compacted_topic_with_record_errors) {
    batch_builder bb;
    bb.add(now, as_bytes_view("k"), as_bytes_view("v"));
    bb.add(now, std::nullopt, as_bytes_view("v"));
    bb.add(now, as_bytes_view("k"), std::nullopt);  // a tombstone is fine
    bb.add(now, std::nullopt, std::nullopt);
    bytes b = std::move(bb.build()).value();
    auto o = client_options();
    EXPECT_TRUE(validate_batch(b, o).ok());
    o.compacted = true;
    auto v = validate_batch(b, o);
    EXPECT_EQ(v.code(), error_code::invalid_record);
    ASSERT_EQ(v.record_errors.size(), 2u);
    EXPECT_EQ(v.record_errors[0].batch_index, 1);
    EXPECT_EQ(v.record_errors[1].batch_index, 3);
    EXPECT_NE(v.record_errors[0].message.find("Compacted topic cannot accept message without key"),
              std::string::npos);
    EXPECT_NE(v.error.message.find("2 record errors"), std::string::npos);
}

TEST(validate_batch, rejects_timestamps_outside_before_and_after_bounds) {
    batch_builder bb;
    bb.add(now - 1000, as_bytes_view("k"), std::nullopt);    // exactly at the lower bound
    bb.add(now - 1001, as_bytes_view("k"), std::nullopt);    // too old
    bb.add(now + 500, as_bytes_view("k"), std::nullopt);     // exactly at the upper bound
    bb.add(now + 501, as_bytes_view("k"), std::nullopt);     // too new
    bb.add(no_timestamp, as_bytes_view("k"), std::nullopt);  // no timestamp: never checked
    bytes b = std::move(bb.build()).value();
    auto o = client_options();
    o.timestamps = {1000, 500};
    auto v = validate_batch(b, o);
    EXPECT_EQ(v.code(), error_code::invalid_timestamp);
    ASSERT_EQ(v.record_errors.size(), 2u);
    EXPECT_EQ(v.record_errors[0].batch_index, 1);
    EXPECT_EQ(v.record_errors[1].batch_index, 3);
    EXPECT_NE(v.record_errors[0].message.find("is out of range"), std::string::npos);
    EXPECT_NE(v.record_errors[0].message.find("[" + std::to_string(now - 1000) + ", " +
                                              std::to_string(now + 500) + "]"),
              std::string::npos);
}

TEST(validate_batch, accepts_any_timestamp_with_default_bounds) {
    batch_builder bb;
    bb.add(0, as_bytes_view("k"), std::nullopt);
    bb.add(std::numeric_limits<int64_t>::max(), as_bytes_view("k"), std::nullopt);
    bb.add(std::numeric_limits<int64_t>::min(), as_bytes_view("k"), std::nullopt);
    EXPECT_TRUE(validate_batch(std::move(bb.build()).value(), client_options()).ok());
}

TEST(validate_batch, timestamp_errors_win_over_key_errors) {
    batch_builder bb;
    bb.add(now, std::nullopt, std::nullopt);
    bb.add(now - 10'000, as_bytes_view("k"), std::nullopt);
    auto o = client_options();
    o.compacted = true;
    o.timestamps = {100, 100};
    auto v = validate_batch(std::move(bb.build()).value(), o);
    EXPECT_EQ(v.code(), error_code::invalid_timestamp);
    EXPECT_EQ(v.record_errors.size(), 2u);
}

TEST(validate_batch, log_append_time_topic_skips_timestamp_checks_and_reports_now) {
    bytes b = make_batch(3, {}, 5);  // ancient timestamps
    auto o = client_options();
    o.timestamps = {1, 1};
    o.message_timestamp_type = timestamp_type::log_append_time;
    auto v = validate_batch(b, o);
    ASSERT_TRUE(v.ok()) << v.error.message;
    EXPECT_EQ(v.max_timestamp, now);
    EXPECT_EQ(v.offset_delta_of_max_timestamp, 0);
}

TEST(validate_batch, refuses_producer_set_log_append_time_like_kafka) {
    batch_options bo;
    bo.timestamp_type = timestamp_type::log_append_time;
    bo.log_append_time = now;
    bytes b = make_batch(2, bo, now);
    // LogAppendTime topic: refused.
    auto o = client_options();
    o.message_timestamp_type = timestamp_type::log_append_time;
    EXPECT_EQ(validate_batch(b, o).code(), error_code::invalid_timestamp);
    // CreateTime topic: Kafka checks the record timestamps (the batch's
    // max_timestamp here) and lets the type bit pass.
    EXPECT_TRUE(validate_batch(b, client_options()).ok());
}

TEST(validate_batch, bounds_decompression_of_a_zip_bomb) {
    batch_options bo;
    bo.codec = compression::gzip;
    std::string zeros(8 << 20, '\0');
    batch_builder bb(bo);
    bb.add(now, as_bytes_view("k"), as_bytes_view(zeros));
    bytes b = std::move(bb.build()).value();
    auto o = client_options();
    o.max_uncompressed_bytes = 1 << 20;
    EXPECT_EQ(validate_batch(b, o).code(), error_code::corrupt_message);
}

TEST(validate_batch, keeps_at_most_the_cap_of_record_errors) {
    batch_builder bb;
    for (size_t i = 0; i < max_record_errors + 50; ++i) {
        bb.add(now, std::nullopt, std::nullopt);
    }
    auto o = client_options();
    o.compacted = true;
    auto v = validate_batch(std::move(bb.build()).value(), o);
    EXPECT_EQ(v.code(), error_code::invalid_record);
    EXPECT_EQ(v.record_errors.size(), max_record_errors);
    EXPECT_NE(v.error.message.find(std::to_string(max_record_errors + 50) + " record errors"),
              std::string::npos);
}

TEST(validate_batch, replication_checks_crc_but_not_records) {
    bytes b = make_batch(2, {}, now);
    store_be32(b.data() + 57, 7);  // count no longer matches the records
    fix_crc(b);
    auto o = client_options();
    o.origin = append_origin::replication;
    o.compacted = true;
    EXPECT_TRUE(validate_batch(b, o).ok());
    b[70] ^= 1;
    EXPECT_EQ(validate_batch(b, o).code(), error_code::corrupt_message);
}

TEST(validate_batch, rejects_malformed_record_inside_valid_crc) {
    bytes b = make_batch(2, {}, now);
    b[batch_header_size] = 0x7f;  // first record's length varint: -64
    fix_crc(b);
    EXPECT_EQ(validate_batch(b, client_options()).code(), error_code::invalid_record);
}

TEST(effective_timestamp_bounds, falls_back_to_difference_only_while_defaults) {
    auto b = effective_timestamp_bounds(5000, no_timestamp_limit, no_timestamp_limit);
    EXPECT_EQ(b.before_max_ms, 5000);
    EXPECT_EQ(b.after_max_ms, 5000);
    b = effective_timestamp_bounds(5000, 100, no_timestamp_limit);
    EXPECT_EQ(b.before_max_ms, 100);
    EXPECT_EQ(b.after_max_ms, 5000);
    b = effective_timestamp_bounds(no_timestamp_limit, no_timestamp_limit, 3600000);
    EXPECT_EQ(b.before_max_ms, no_timestamp_limit);
    EXPECT_EQ(b.after_max_ms, 3600000);
}

// ---- validate_produce_records -------------------------------------------------

TEST(validate_produce_records, accepts_exactly_one_batch) {
    bytes b = make_batch(2);
    auto r = validate_produce_records(b, 9);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->magic, 2);
    EXPECT_EQ(r->data.data(), b.data());
    EXPECT_EQ(r->data.size(), b.size());
}

TEST(validate_produce_records, ignores_a_partial_tail_after_the_batch) {
    bytes b = make_batch(2);
    size_t n = b.size();
    bytes more = make_batch(1);
    b.insert(b.end(), more.begin(), more.begin() + 30);
    auto r = validate_produce_records(b, 9);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->data.size(), n);
}

TEST(validate_produce_records, rejects_empty_records_from_v3) {
    auto r = validate_produce_records({}, 3);
    EXPECT_EQ(r.code(), error_code::invalid_record);
    EXPECT_NE(r.err().message.find("must have at least one record batch"), std::string::npos);
    bytes partial = make_batch(1);
    partial.resize(30);
    EXPECT_EQ(validate_produce_records(partial, 8).code(), error_code::invalid_record);
    auto old = validate_produce_records({}, 2);
    ASSERT_TRUE(old);
    EXPECT_TRUE(old->data.empty());
}

TEST(validate_produce_records, rejects_two_batches) {
    bytes b = make_batch(1);
    bytes c = make_batch(1);
    b.insert(b.end(), c.begin(), c.end());
    auto r = validate_produce_records(b, 9);
    EXPECT_EQ(r.code(), error_code::invalid_record);
    EXPECT_NE(r.err().message.find("exactly one record batch"), std::string::npos);
    EXPECT_EQ(validate_produce_records(b, 2).code(), error_code::invalid_record);
}

TEST(validate_produce_records, rejects_legacy_magic_from_v3_but_passes_it_before) {
    bytes b = make_batch(1);
    b[magic_offset] = 1;
    EXPECT_EQ(validate_produce_records(b, 3).code(), error_code::invalid_record);
    auto r = validate_produce_records(b, 2);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->magic, 1);
    EXPECT_EQ(r->data.size(), b.size());
}

TEST(validate_produce_records, rejects_zstd_before_v7) {
    batch_options bo;
    bo.codec = compression::zstd;
    bytes b = make_batch(1, bo);
    EXPECT_EQ(validate_produce_records(b, 6).code(), error_code::unsupported_compression_type);
    EXPECT_TRUE(validate_produce_records(b, 7));
}

TEST(validate_produce_records, rejects_hostile_lengths_and_magic_as_corrupt) {
    bytes b = make_batch(1);
    store_be32(b.data() + 8, 13);
    EXPECT_EQ(validate_produce_records(b, 9).code(), error_code::corrupt_message);
    store_be32(b.data() + 8, uint32_t(-100));
    EXPECT_EQ(validate_produce_records(b, 9).code(), error_code::corrupt_message);
    bytes c = make_batch(1);
    c[magic_offset] = 3;
    EXPECT_EQ(validate_produce_records(c, 9).code(), error_code::corrupt_message);
    // A huge length just means the batch is incomplete.
    bytes d = make_batch(1);
    store_be32(d.data() + 8, 0x7fffffff);
    EXPECT_EQ(validate_produce_records(d, 9).code(), error_code::invalid_record);
}

}  // namespace
}  // namespace samsa::record
