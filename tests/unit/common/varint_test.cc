#include "common/varint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace samsa {
namespace {

TEST(varint, zigzag_maps_small_magnitudes_to_small_codes) {
    EXPECT_EQ(zigzag_encode32(0), 0u);
    EXPECT_EQ(zigzag_encode32(-1), 1u);
    EXPECT_EQ(zigzag_encode32(1), 2u);
    EXPECT_EQ(zigzag_encode32(-2), 3u);
    EXPECT_EQ(zigzag_encode32(std::numeric_limits<int32_t>::max()), 0xfffffffeu);
    EXPECT_EQ(zigzag_encode32(std::numeric_limits<int32_t>::min()), 0xffffffffu);
    EXPECT_EQ(zigzag_decode64(zigzag_encode64(std::numeric_limits<int64_t>::min())),
              std::numeric_limits<int64_t>::min());
}

TEST(varint, known_encodings_match_kafka) {
    uint8_t buf[10];
    // 300 = 0b1_0010_1100 -> 0xac 0x02 (protobuf's example).
    ASSERT_EQ(encode_uvarint32(buf, 300), 2u);
    EXPECT_EQ(buf[0], 0xac);
    EXPECT_EQ(buf[1], 0x02);
    // Signed -1 is zigzag 1: one byte 0x01.
    ASSERT_EQ(encode_varint32(buf, -1), 1u);
    EXPECT_EQ(buf[0], 0x01);
    ASSERT_EQ(encode_uvarint32(buf, 0xffffffffu), 5u);
    EXPECT_EQ(buf[4], 0x0f);
}

TEST(varint, round_trips_boundaries) {
    std::vector<int64_t> values = {0,
                                   1,
                                   -1,
                                   63,
                                   -64,
                                   64,
                                   127,
                                   128,
                                   16383,
                                   16384,
                                   -16385,
                                   std::numeric_limits<int32_t>::max(),
                                   std::numeric_limits<int32_t>::min(),
                                   std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min()};
    for (int64_t v : values) {
        uint8_t buf[10];
        size_t n = encode_varint64(buf, v);
        EXPECT_EQ(n, varint64_size(v));
        int64_t out = 0;
        EXPECT_EQ(decode_varint64(buf, buf + n, &out), n);
        EXPECT_EQ(out, v);
        if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
            int32_t out32 = 0;
            size_t n32 = encode_varint32(buf, int32_t(v));
            EXPECT_EQ(decode_varint32(buf, buf + n32, &out32), n32);
            EXPECT_EQ(out32, v);
        }
    }
}

TEST(varint, rejects_truncated_input) {
    uint8_t buf[] = {0x80, 0x80};
    uint32_t out = 0;
    EXPECT_EQ(decode_uvarint32(buf, buf + sizeof buf, &out), 0u);
    EXPECT_EQ(decode_uvarint32(buf, buf, &out), 0u);
}

TEST(varint, rejects_overlong_input) {
    // Six bytes cannot hold a 32-bit value; a fifth byte with high bits set overflows.
    uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    uint32_t out = 0;
    EXPECT_EQ(decode_uvarint32(six, six + sizeof six, &out), 0u);
    uint8_t overflow[] = {0xff, 0xff, 0xff, 0xff, 0x1f};
    EXPECT_EQ(decode_uvarint32(overflow, overflow + sizeof overflow, &out), 0u);
    uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    uint64_t out64 = 0;
    EXPECT_EQ(decode_uvarint64(eleven, eleven + sizeof eleven, &out64), 0u);
}

}  // namespace
}  // namespace samsa
