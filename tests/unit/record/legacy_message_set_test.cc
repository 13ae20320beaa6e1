#include "record/legacy_message_set.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "batch_test_util.h"

namespace samsa::record {
namespace {

constexpr int64_t now = 1'700'000'000'000;

validation_options options() {
    validation_options o;
    o.now_ms = now;
    return o;
}

bytes_view sv(std::string_view s) {
    return as_bytes_view(s);
}

// n uncompressed messages "k<i>" -> "v<i>" with offsets first..first+n-1.
bytes plain_set(int8_t magic, int n, int64_t first_offset = 0, int64_t ts0 = now) {
    bytes out;
    for (int i = 0; i < n; ++i) {
        std::string k = "k" + std::to_string(i), v = "v" + std::to_string(i);
        encode_legacy_message(out, magic, first_offset + i, 0, ts0 + i, sv(k), sv(v));
    }
    return out;
}

// A wrapper message holding `inner` compressed with `codec`.
bytes wrapper(int8_t magic, compression codec, const bytes& inner, int64_t offset, int64_t ts = now,
              bool log_append_time = false) {
    bytes compressed = std::move(compress(codec, inner)).value();
    bytes out;
    int8_t attributes = int8_t(int(codec) | (log_append_time ? 0x08 : 0));
    encode_legacy_message(out, magic, offset, attributes, ts, std::nullopt, bytes_view(compressed));
    return out;
}

TEST(legacy_message_set, encodes_a_v0_message_byte_for_byte) {
    bytes out;
    encode_legacy_message(out, 0, 7, 0, no_timestamp, sv("k"), sv("v"));
    bytes expected = {0, 0, 0, 0,  0,   0, 0, 7,  // offset
                      0, 0, 0, 16,                // message size
                      0, 0, 0, 0,                 // crc, checked below
                      0, 0,                       // magic, attributes
                      0, 0, 0, 1,  'k',           // key
                      0, 0, 0, 1,  'v'};          // value
    ASSERT_EQ(out.size(), expected.size());
    uint32_t crc = uint32_t(crc32(0, expected.data() + 16, uInt(expected.size() - 16)));
    store_be32(expected.data() + 12, crc);
    EXPECT_EQ(out, expected);
}

TEST(legacy_message_set, parses_uncompressed_v0_set) {
    bytes in = plain_set(0, 3, 100);
    auto set = legacy_message_set::parse(in, options());
    ASSERT_TRUE(set) << set.err().message;
    EXPECT_EQ(set->magic(), 0);
    EXPECT_EQ(set->source_compression(), compression::none);
    EXPECT_EQ(set->valid_bytes(), in.size());
    ASSERT_EQ(set->messages().size(), 3u);
    EXPECT_EQ(set->messages()[2].offset, 102);
    EXPECT_EQ(set->messages()[2].timestamp, no_timestamp);
    EXPECT_EQ(test::str(set->messages()[1].key), "k1");
    EXPECT_EQ(test::str(set->messages()[1].value), "v1");
}

TEST(legacy_message_set, parses_uncompressed_v1_set_with_timestamps_and_nulls) {
    bytes in;
    encode_legacy_message(in, 1, 0, 0, now - 5, std::nullopt, sv("a"));
    encode_legacy_message(in, 1, 1, 0, now - 4, sv("b"), std::nullopt);
    auto set = legacy_message_set::parse(in, options());
    ASSERT_TRUE(set) << set.err().message;
    ASSERT_EQ(set->messages().size(), 2u);
    EXPECT_EQ(set->messages()[0].timestamp, now - 5);
    EXPECT_FALSE(set->messages()[0].key);
    EXPECT_FALSE(set->messages()[1].value);
}

TEST(legacy_message_set, ignores_a_partial_trailing_entry) {
    bytes in = plain_set(1, 2);
    size_t whole = in.size();
    bytes more = plain_set(1, 1);
    in.insert(in.end(), more.begin(), more.begin() + 20);
    auto set = legacy_message_set::parse(in, options());
    ASSERT_TRUE(set);
    EXPECT_EQ(set->messages().size(), 2u);
    EXPECT_EQ(set->valid_bytes(), whole);
}

TEST(legacy_message_set, rejects_message_with_bad_crc) {
    bytes in = plain_set(1, 2);
    in.back() ^= 1;
    EXPECT_EQ(legacy_message_set::parse(in, options()).code(), error_code::corrupt_message);
}

TEST(legacy_message_set, rejects_mixed_magic) {
    bytes in = plain_set(0, 1);
    bytes v1 = plain_set(1, 1);
    in.insert(in.end(), v1.begin(), v1.end());
    EXPECT_EQ(legacy_message_set::parse(in, options()).code(), error_code::invalid_record);
}

TEST(legacy_message_set, rejects_hostile_sizes_and_magic) {
    bytes in = plain_set(1, 1);
    store_be32(in.data() + 8, 13);
    EXPECT_EQ(legacy_message_set::parse(in, options()).code(), error_code::corrupt_message);
    store_be32(in.data() + 8, uint32_t(-1));
    EXPECT_EQ(legacy_message_set::parse(in, options()).code(), error_code::corrupt_message);
    bytes bad_magic = plain_set(1, 1);
    bad_magic[16] = 9;
    EXPECT_EQ(legacy_message_set::parse(bad_magic, options()).code(), error_code::corrupt_message);
    bytes v2 = test::make_batch(1);
    EXPECT_EQ(legacy_message_set::parse(v2, options()).code(), error_code::invalid_record);
}

TEST(legacy_message_set, rejects_key_length_beyond_message) {
    bytes in;
    encode_legacy_message(in, 0, 0, 0, no_timestamp, sv("key"), sv("value"));
    store_be32(in.data() + 18, 50);  // key length
    store_be32(in.data() + 12, uint32_t(crc32(0, in.data() + 16, uInt(in.size() - 16))));
    EXPECT_EQ(legacy_message_set::parse(in, options()).code(), error_code::corrupt_message);
}

TEST(legacy_message_set, rejects_message_over_max_message_bytes) {
    bytes in = plain_set(1, 1);
    auto o = options();
    o.max_message_bytes = int32_t(in.size()) - 1;
    EXPECT_EQ(legacy_message_set::parse(in, o).code(), error_code::message_too_large);
}

TEST(legacy_message_set, rejects_zstd_and_unknown_codecs) {
    for (int8_t codec = 4; codec <= 7; ++codec) {
        bytes in;
        encode_legacy_message(in, 1, 0, codec, now, std::nullopt, sv("x"));
        EXPECT_EQ(legacy_message_set::parse(in, options()).code(),
                  error_code::unsupported_compression_type);
    }
}

class legacy_codec_test : public ::testing::TestWithParam<compression> {};

TEST_P(legacy_codec_test, resolves_relative_offsets_of_a_v1_wrapper) {
    bytes in = wrapper(1, GetParam(), plain_set(1, 4, 0, now - 10), 53);
    auto set = legacy_message_set::parse(in, options());
    ASSERT_TRUE(set) << set.err().message;
    EXPECT_EQ(set->source_compression(), GetParam());
    ASSERT_EQ(set->messages().size(), 4u);
    EXPECT_EQ(set->messages()[0].offset, 50);
    EXPECT_EQ(set->messages()[3].offset, 53);
    EXPECT_EQ(set->messages()[3].timestamp, now - 7);
    EXPECT_EQ(test::str(set->messages()[3].value), "v3");
}

TEST_P(legacy_codec_test, reads_a_v0_wrapper_with_absolute_offsets) {
    bytes in = wrapper(0, GetParam(), plain_set(0, 3, 20), 22);
    auto set = legacy_message_set::parse(in, options());
    ASSERT_TRUE(set) << set.err().message;
    ASSERT_EQ(set->messages().size(), 3u);
    EXPECT_EQ(set->messages()[0].offset, 20);
    EXPECT_EQ(set->messages()[2].timestamp, no_timestamp);
}

INSTANTIATE_TEST_SUITE_P(all, legacy_codec_test,
                         ::testing::Values(compression::gzip, compression::snappy,
                                           compression::lz4),
                         [](const auto& info) {
                             return std::string(compression_name(info.param));
                         });

TEST(legacy_message_set, log_append_time_wrapper_overrides_inner_timestamps) {
    bytes in = wrapper(1, compression::gzip, plain_set(1, 2, 0, 5), 1, now, true);
    auto o = options();
    o.message_timestamp_type = timestamp_type::create_time;
    auto set = legacy_message_set::parse(in, o);
    ASSERT_TRUE(set) << set.err().message;
    for (const auto& m : set->messages()) {
        EXPECT_EQ(m.timestamp, now);
        EXPECT_TRUE(m.log_append_time);
    }
}

TEST(legacy_message_set, reads_v0_lz4_wrapper_with_kafkas_broken_header_checksum) {
    bytes inner = plain_set(0, 2);
    bytes compressed = std::move(compress(compression::lz4, inner)).value();
    compressed[6] = uint8_t(xxh32(bytes_view(compressed.data(), 6)) >> 8);
    bytes in;
    encode_legacy_message(in, 0, 1, int8_t(compression::lz4), no_timestamp, std::nullopt,
                          bytes_view(compressed));
    auto set = legacy_message_set::parse(in, options());
    ASSERT_TRUE(set) << set.err().message;
    EXPECT_EQ(set->messages().size(), 2u);
}

TEST(legacy_message_set, rejects_compressed_wrapper_with_other_entries) {
    bytes in = wrapper(1, compression::gzip, plain_set(1, 2), 1);
    bytes more = plain_set(1, 1, 2);
    in.insert(in.end(), more.begin(), more.end());
    EXPECT_EQ(legacy_message_set::parse(in, options()).code(), error_code::invalid_record);
}

TEST(legacy_message_set, rejects_wrapper_with_null_value_or_no_inner_messages) {
    bytes null_value;
    encode_legacy_message(null_value, 1, 0, int8_t(compression::gzip), now, std::nullopt,
                          std::nullopt);
    EXPECT_EQ(legacy_message_set::parse(null_value, options()).code(), error_code::invalid_record);
    bytes empty = wrapper(1, compression::gzip, {}, 0);
    EXPECT_EQ(legacy_message_set::parse(empty, options()).code(), error_code::invalid_record);
}

TEST(legacy_message_set, rejects_nested_compression_and_inner_magic_mismatch) {
    bytes nested =
        wrapper(1, compression::gzip, wrapper(1, compression::gzip, plain_set(1, 1), 0), 0);
    EXPECT_EQ(legacy_message_set::parse(nested, options()).code(), error_code::invalid_record);
    bytes mismatch = wrapper(1, compression::gzip, plain_set(0, 2), 1);
    EXPECT_EQ(legacy_message_set::parse(mismatch, options()).code(), error_code::invalid_record);
}

TEST(legacy_message_set, rejects_inner_message_with_bad_crc_or_truncation) {
    bytes inner = plain_set(1, 2);
    inner.back() ^= 1;
    EXPECT_EQ(
        legacy_message_set::parse(wrapper(1, compression::snappy, inner, 1), options()).code(),
        error_code::corrupt_message);
    bytes cut = plain_set(1, 2);
    cut.resize(cut.size() - 3);
    EXPECT_EQ(legacy_message_set::parse(wrapper(1, compression::snappy, cut, 1), options()).code(),
              error_code::corrupt_message);
}

TEST(legacy_message_set, bounds_decompression_of_a_zip_bomb_wrapper) {
    bytes big;
    std::string zeros(4 << 20, '\0');
    encode_legacy_message(big, 1, 0, 0, now, std::nullopt, sv(zeros));
    bytes in = wrapper(1, compression::gzip, big, 0);
    auto o = options();
    o.max_uncompressed_bytes = 1 << 20;
    EXPECT_EQ(legacy_message_set::parse(in, o).code(), error_code::corrupt_message);
}

TEST(legacy_message_set, applies_key_and_timestamp_rules) {
    bytes keyless;
    encode_legacy_message(keyless, 1, 0, 0, now, std::nullopt, sv("v"));
    auto o = options();
    o.compacted = true;
    EXPECT_EQ(legacy_message_set::parse(keyless, o).code(), error_code::invalid_record);

    auto t = options();
    t.timestamps = {1000, 1000};
    EXPECT_EQ(legacy_message_set::parse(plain_set(1, 1, 0, now - 5000), t).code(),
              error_code::invalid_timestamp);
    // Magic 0 messages have no timestamp to check.
    EXPECT_TRUE(legacy_message_set::parse(plain_set(0, 1, 0, now - 5000), t));
}

TEST(convert_to_v2, produces_one_valid_v2_batch) {
    bytes in = wrapper(1, compression::snappy, plain_set(1, 5, 0, now - 10), 4);
    auto set = legacy_message_set::parse(in, options());
    ASSERT_TRUE(set);
    auto batch = convert_to_v2(*set, set->source_compression(), timestamp_type::create_time, now);
    ASSERT_TRUE(batch) << batch.err().message;
    batch_header h = test::header_of(*batch);
    EXPECT_EQ(h.compression(), compression::snappy);
    EXPECT_EQ(h.records_count, 5);
    EXPECT_EQ(h.max_timestamp, now - 6);
    EXPECT_EQ(h.producer_id, no_producer_id);
    auto v = validate_batch(*batch, options());
    EXPECT_TRUE(v.ok()) << v.error.message;
    auto recs = test::read_all(*batch);
    ASSERT_EQ(recs.size(), 5u);
    EXPECT_EQ(recs[4].offset, 4);
    EXPECT_EQ(recs[4].key, "k4");
    EXPECT_EQ(recs[4].timestamp, now - 6);
}

TEST(convert_to_v2, stamps_log_append_time_topics_with_now) {
    bytes in = plain_set(0, 2);  // the set views these bytes
    auto set = legacy_message_set::parse(in, options());
    ASSERT_TRUE(set);
    auto batch = convert_to_v2(*set, compression::none, timestamp_type::log_append_time, now);
    ASSERT_TRUE(batch);
    EXPECT_EQ(test::header_of(*batch).timestamp_type(), timestamp_type::log_append_time);
    for (const auto& r : test::read_all(*batch)) {
        EXPECT_EQ(r.timestamp, now);
    }
}

TEST(convert_to_v2, rejects_an_empty_set) {
    auto set = legacy_message_set::parse({}, options());
    ASSERT_TRUE(set);
    EXPECT_EQ(convert_to_v2(*set, compression::none, timestamp_type::create_time, now).code(),
              error_code::invalid_record);
}

}  // namespace
}  // namespace samsa::record
