#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "protocol/reader.h"
#include "protocol/writer.h"

namespace samsa::protocol {
namespace {

TEST(primitives, integers_are_big_endian) {
    writer w;
    w.write_int16(0x0102);
    w.write_int32(0x03040506);
    w.write_int64(0x0708090a0b0c0d0eLL);
    EXPECT_EQ(w.buffer(), (bytes{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
    reader r(w.buffer());
    EXPECT_EQ(r.read_int16(), 0x0102);
    EXPECT_EQ(r.read_int32(), 0x03040506);
    EXPECT_EQ(r.read_int64(), 0x0708090a0b0c0d0eLL);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.remaining(), 0u);
}

TEST(primitives, classic_and_compact_strings) {
    writer w;
    w.write_string("abc");
    w.write_compact_string("abc");
    w.write_nullable_string(std::nullopt);
    w.write_compact_nullable_string(std::nullopt);
    EXPECT_EQ(w.buffer(), (bytes{0, 3, 'a', 'b', 'c', 4, 'a', 'b', 'c', 0xff, 0xff, 0}));
    reader r(w.buffer());
    EXPECT_EQ(r.read_string(), "abc");
    EXPECT_EQ(r.read_compact_string(), "abc");
    EXPECT_EQ(r.read_nullable_string(), std::nullopt);
    EXPECT_EQ(r.read_compact_nullable_string(), std::nullopt);
    EXPECT_TRUE(r.ok());
}

TEST(primitives, null_where_not_nullable_fails_the_reader) {
    bytes b{0xff, 0xff};
    reader r(b);
    r.read_string();
    EXPECT_FALSE(r.ok());
    bytes c{0};
    reader rc(c);
    rc.read_compact_string();
    EXPECT_FALSE(rc.ok());
}

TEST(primitives, string_longer_than_buffer_fails_without_reading_past_end) {
    bytes b{0, 10, 'a', 'b'};
    reader r(b);
    EXPECT_EQ(r.read_string(), "");
    EXPECT_FALSE(r.ok());
    // A failed reader stays failed and returns zero values.
    EXPECT_EQ(r.read_int32(), 0);
    EXPECT_FALSE(r.ok());
}

TEST(primitives, hostile_array_length_fails_instead_of_allocating) {
    writer w;
    w.write_int32(std::numeric_limits<int32_t>::max());
    w.write_int32(0);
    reader r(w.buffer());
    EXPECT_EQ(r.read_array_length(), 0);
    EXPECT_FALSE(r.ok());

    writer cw;
    cw.write_uvarint(0xffffffffu);
    reader cr(cw.buffer());
    cr.read_compact_array_length();
    EXPECT_FALSE(cr.ok());
}

TEST(primitives, compact_array_zero_is_null) {
    bytes b{0, 1};
    reader r(b);
    EXPECT_EQ(r.read_compact_array_length(), -1);
    EXPECT_EQ(r.read_compact_array_length(), 0);
    EXPECT_TRUE(r.ok());
}

TEST(primitives, tagged_fields_must_ascend_and_fit) {
    // Two fields with the same tag: invalid.
    bytes dup{2, 1, 0, 1, 0};
    reader r(dup);
    unknown_tagged_fields out;
    r.read_tagged_fields([&](uint32_t tag, uint32_t size) { r.store_unknown_tag(out, tag, size); });
    EXPECT_FALSE(r.ok());
    // A size beyond the buffer: invalid.
    bytes big{1, 5, 10, 1};
    reader r2(big);
    r2.read_tagged_fields(
        [&](uint32_t tag, uint32_t size) { r2.store_unknown_tag(out, tag, size); });
    EXPECT_FALSE(r2.ok());
}

TEST(primitives, records_decode_as_views_into_the_frame) {
    writer w;
    bytes payload{9, 8, 7};
    w.write_records(records::view(payload));
    w.write_records(records{});
    reader r(w.buffer());
    records a = r.read_records();
    records b = r.read_records();
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(a.is_null());
    EXPECT_EQ(a.contiguous().data(), w.buffer().data() + 4);  // no copy
    EXPECT_EQ(a.size(), 3u);
    EXPECT_TRUE(b.is_null());
}

TEST(primitives, file_ranges_become_splices_not_bytes) {
    writer w;
    records r = records::empty();
    r.append(file_range{42, 100, 500, nullptr});
    w.write_int8(1);
    w.write_records(r);
    EXPECT_EQ(w.buffer().size(), 5u);  // the int8 and the length only
    EXPECT_EQ(w.size(), 505u);
    ASSERT_EQ(w.splices().size(), 1u);
    EXPECT_EQ(w.splices()[0].position, 5u);
    EXPECT_EQ(w.splices()[0].file.length, 500u);
}

}  // namespace
}  // namespace samsa::protocol
