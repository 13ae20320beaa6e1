#include "common/crc32c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

namespace samsa {
namespace {

// RFC 3720, appendix B.4.
TEST(crc32c, rfc3720_vectors) {
    std::vector<uint8_t> zeros(32, 0);
    EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8a9136aaU);
    std::vector<uint8_t> ones(32, 0xff);
    EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62a8ab43U);
    std::vector<uint8_t> inc(32);
    std::iota(inc.begin(), inc.end(), 0);
    EXPECT_EQ(crc32c(inc.data(), inc.size()), 0x46dd794eU);
    std::vector<uint8_t> dec(32);
    for (int i = 0; i < 32; ++i) {
        dec[i] = uint8_t(31 - i);
    }
    EXPECT_EQ(crc32c(dec.data(), dec.size()), 0x113fdb5cU);
}

TEST(crc32c, check_value_of_123456789) {
    const char* s = "123456789";
    EXPECT_EQ(crc32c(s, std::strlen(s)), 0xe3069283U);
}

TEST(crc32c, hardware_and_portable_agree_on_every_length_and_alignment) {
    std::vector<uint8_t> data(1000);
    for (size_t i = 0; i < data.size(); ++i) {
        data[i] = uint8_t(i * 7 + 3);
    }
    for (size_t off = 0; off < 9; ++off) {
        for (size_t len = 0; len + off <= 300; ++len) {
            ASSERT_EQ(crc32c(data.data() + off, len),
                      crc32c_extend_portable(0, data.data() + off, len))
                << "off=" << off << " len=" << len;
        }
    }
}

// Long buffers take the three-way interleaved path (stripes of 3 x 256 and
// 3 x 4096 bytes); lengths straddle every stripe boundary.
TEST(crc32c, interleaved_stripes_agree_with_portable) {
    std::vector<uint8_t> data(40000);
    uint32_t x = 12345;
    for (auto& b : data) {
        x = x * 1103515245 + 12345;
        b = uint8_t(x >> 16);
    }
    for (size_t base : {767u, 768u, 769u, 1536u, 12287u, 12288u, 12289u, 24576u, 36864u}) {
        for (size_t off = 0; off < 3; ++off) {
            for (size_t len = base - 9; len <= base + 9 && off + len <= data.size(); ++len) {
                ASSERT_EQ(crc32c_extend(0x1234u, data.data() + off, len),
                          crc32c_extend_portable(0x1234u, data.data() + off, len))
                    << "off=" << off << " len=" << len;
            }
        }
    }
}

TEST(crc32c, extend_equals_one_shot) {
    std::vector<uint8_t> data(513, 0x5a);
    uint32_t whole = crc32c(data.data(), data.size());
    uint32_t part = crc32c_extend(0, data.data(), 100);
    part = crc32c_extend(part, data.data() + 100, data.size() - 100);
    EXPECT_EQ(whole, part);
}

}  // namespace
}  // namespace samsa
