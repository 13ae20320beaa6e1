#include "record/record.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "common/varint.h"

namespace samsa::record {
namespace {

bytes_view sv(std::string_view s) {
    return as_bytes_view(s);
}

// The encoding and the record decoded from it; moving it keeps the views valid
// because a moved vector keeps its heap buffer.
struct decoded {
    bytes buf;
    record rec;
};

decoded roundtrip(const record& r) {
    decoded d;
    encode_record(r, d.buf);
    EXPECT_EQ(d.buf.size(), encoded_record_size(r));
    auto n = decode_record(d.buf, d.rec);
    EXPECT_TRUE(n.has_value()) << (n ? "" : n.err().message);
    if (n) {
        EXPECT_EQ(*n, d.buf.size());
        EXPECT_EQ(d.rec.size_bytes, d.buf.size());
    }
    return d;
}

TEST(record, encodes_key_value_record_byte_for_byte) {
    record r;
    r.timestamp_delta = 0;
    r.offset_delta = 0;
    r.key = sv("k");
    r.value = sv("v");
    bytes buf;
    encode_record(r, buf);
    // body: attrs 0, ts delta 0, offset delta 0, key len 1 (zigzag 2), 'k',
    // value len 1 (zigzag 2), 'v', header count 0 -> 8 bytes; length 8 -> zigzag 16.
    bytes expected = {0x10, 0x00, 0x00, 0x00, 0x02, 'k', 0x02, 'v', 0x00};
    EXPECT_EQ(buf, expected);
}

TEST(record, round_trips_key_value_and_headers) {
    record r;
    r.timestamp_delta = 1234;
    r.offset_delta = 7;
    r.key = sv("key");
    r.value = sv("value");
    r.headers = {{"h1", sv("v1")}, {"h2", std::nullopt}, {"", sv("")}};
    auto d = roundtrip(r);
    const record& out = d.rec;
    EXPECT_EQ(out.timestamp_delta, 1234);
    EXPECT_EQ(out.offset_delta, 7);
    ASSERT_TRUE(out.key && out.value);
    EXPECT_EQ(as_string_view(*out.key), "key");
    EXPECT_EQ(as_string_view(*out.value), "value");
    ASSERT_EQ(out.headers.size(), 3u);
    EXPECT_EQ(out.headers[0].key, "h1");
    EXPECT_EQ(as_string_view(*out.headers[0].value), "v1");
    EXPECT_EQ(out.headers[1].key, "h2");
    EXPECT_FALSE(out.headers[1].value.has_value());
    EXPECT_EQ(out.headers[2].key, "");
    ASSERT_TRUE(out.headers[2].value.has_value());
    EXPECT_TRUE(out.headers[2].value->empty());
}

TEST(record, distinguishes_null_from_empty_key_and_value) {
    record r;
    auto d = roundtrip(r);
    const record& out = d.rec;
    EXPECT_FALSE(out.key.has_value());
    EXPECT_FALSE(out.value.has_value());
    r.key = sv("");
    r.value = sv("");
    auto d2 = roundtrip(r);
    ASSERT_TRUE(d2.rec.key.has_value());
    ASSERT_TRUE(d2.rec.value.has_value());
    EXPECT_TRUE(d2.rec.key->empty());
    EXPECT_TRUE(d2.rec.value->empty());
}

TEST(record, round_trips_extreme_varint_values) {
    for (int64_t ts :
         {int64_t(0), int64_t(-1), int64_t(63), int64_t(-64), int64_t(64), int64_t(-65),
          std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
        for (int32_t off : {0, 1, 63, 64, 8191, 8192, std::numeric_limits<int32_t>::max()}) {
            record r;
            r.timestamp_delta = ts;
            r.offset_delta = off;
            auto d = roundtrip(r);
            const record& out = d.rec;
            EXPECT_EQ(out.timestamp_delta, ts);
            EXPECT_EQ(out.offset_delta, off);
        }
    }
}

TEST(record, round_trips_value_lengths_at_varint_boundaries) {
    for (size_t len : {size_t(63), size_t(64), size_t(8191), size_t(8192), size_t(1) << 20}) {
        std::string v(len, 'x');
        record r;
        r.value = sv(v);
        auto d = roundtrip(r);
        const record& out = d.rec;
        ASSERT_TRUE(out.value);
        EXPECT_EQ(out.value->size(), len);
    }
}

// Builds a record body from raw fields so tests can break one field at a time.
bytes with_length(const bytes& body) {
    bytes out(max_varint32_bytes);
    out.resize(encode_varint32(out.data(), int32_t(body.size())));
    out.insert(out.end(), body.begin(), body.end());
    return out;
}

void expect_invalid(const bytes& b) {
    record out;
    auto r = decode_record(b, out);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.code(), error_code::invalid_record);
}

TEST(record, rejects_empty_input) {
    expect_invalid({});
}

TEST(record, rejects_overlong_length_varint) {
    expect_invalid({0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
}

TEST(record, rejects_negative_record_length) {
    expect_invalid({0x01, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00});  // zigzag 1 = -1
}

TEST(record, rejects_length_beyond_input) {
    expect_invalid({0x20, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00});  // claims 16 bytes
}

TEST(record, rejects_key_length_below_minus_one) {
    expect_invalid(with_length({0x00, 0x00, 0x00, 0x03, 0x01, 0x00}));  // key len -2
}

TEST(record, rejects_key_running_past_record_body) {
    // The key claims 4 bytes but the body ends first; the following bytes (a
    // neighbouring record in a real batch) must not be read.
    bytes b = with_length({0x00, 0x00, 0x00, 0x08, 'a', 'b'});
    b.insert(b.end(), {'c', 'd', 0x01, 0x00});
    expect_invalid(b);
}

TEST(record, rejects_negative_header_count) {
    expect_invalid(with_length({0x00, 0x00, 0x00, 0x01, 0x01, 0x01}));
}

TEST(record, rejects_header_count_larger_than_body) {
    expect_invalid(with_length({0x00, 0x00, 0x00, 0x01, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x07}));
}

TEST(record, rejects_negative_header_key_length) {
    expect_invalid(with_length({0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x01, 0x01}));
}

TEST(record, rejects_body_with_unread_trailing_bytes) {
    expect_invalid(with_length({0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x99}));
}

TEST(record, rejects_body_truncated_before_header_count) {
    expect_invalid(with_length({0x00, 0x00, 0x00, 0x01, 0x01}));
}

TEST(record, decodes_only_its_own_bytes_from_a_longer_buffer) {
    record r;
    r.value = sv("abc");
    bytes buf;
    encode_record(r, buf);
    size_t first = buf.size();
    encode_record(r, buf);
    record out;
    auto n = decode_record(buf, out);
    ASSERT_TRUE(n);
    EXPECT_EQ(*n, first);
}

}  // namespace
}  // namespace samsa::record
