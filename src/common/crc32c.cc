#include "common/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace samsa {

namespace {

constexpr uint32_t k_poly = 0x82f63b78;  // reversed Castagnoli polynomial

using table_t = std::array<std::array<uint32_t, 256>, 8>;

constexpr table_t make_tables() {
    table_t t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) {
            c = (c & 1) ? (c >> 1) ^ k_poly : c >> 1;
        }
        t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
        for (size_t s = 1; s < 8; ++s) {
            t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
        }
    }
    return t;
}

constexpr table_t k_tables = make_tables();

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_hw(uint32_t crc, const uint8_t* p, size_t n) {
    uint64_t c = ~crc;
    while (n >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        n -= 8;
    }
    auto c32 = static_cast<uint32_t>(c);
    while (n--) {
        c32 = _mm_crc32_u8(c32, *p++);
    }
    return ~c32;
}

bool detect_hw() {
    return __builtin_cpu_supports("sse4.2");
}
#else
uint32_t crc32c_hw(uint32_t crc, const uint8_t* p, size_t n) {
    return crc32c_extend_portable(crc, p, n);
}
bool detect_hw() {
    return false;
}
#endif

const bool k_has_hw = detect_hw();

}  // namespace

uint32_t crc32c_extend_portable(uint32_t crc, const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    uint32_t c = ~crc;
    while (len >= 8) {
        uint32_t lo;
        uint32_t hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
        lo ^= c;  // little-endian hosts only (x86_64, aarch64)
        c = k_tables[7][lo & 0xff] ^ k_tables[6][(lo >> 8) & 0xff] ^
            k_tables[5][(lo >> 16) & 0xff] ^ k_tables[4][lo >> 24] ^ k_tables[3][hi & 0xff] ^
            k_tables[2][(hi >> 8) & 0xff] ^ k_tables[1][(hi >> 16) & 0xff] ^ k_tables[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--) {
        c = (c >> 8) ^ k_tables[0][(c ^ *p++) & 0xff];
    }
    return ~c;
}

bool crc32c_hardware_available() {
    return k_has_hw;
}

uint32_t crc32c_extend(uint32_t crc, const void* data, size_t len) {
    if (k_has_hw) {
        return crc32c_hw(crc, static_cast<const uint8_t*>(data), len);
    }
    return crc32c_extend_portable(crc, data, len);
}

}  // namespace samsa
