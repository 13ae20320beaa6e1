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
// The crc32 instruction has a latency of three cycles and a throughput of one, so
// one dependency chain uses a third of the unit. Long buffers are cut into stripes
// of three equal blocks whose CRCs run interleaved, then joined: by linearity,
// crc(a, X||Y) = shift(crc(a, X), |Y|) ^ crc(0, Y), where shift multiplies the
// register by x^(8|Y|) mod P. The shift by a fixed block length is a linear map of
// 32 bits, kept as four 256-entry tables.
__attribute__((target("sse4.2"))) uint32_t crc32c_raw_serial(uint32_t c32, const uint8_t* p,
                                                             size_t n) {
    uint64_t c = c32;
    while (n >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        n -= 8;
    }
    c32 = static_cast<uint32_t>(c);
    while (n--) {
        c32 = _mm_crc32_u8(c32, *p++);
    }
    return c32;
}

struct shift_table {
    std::array<std::array<uint32_t, 256>, 4> t{};

    __attribute__((target("sse4.2"))) explicit shift_table(size_t block) {
        std::array<uint32_t, 32> basis{};
        for (size_t bit = 0; bit < 32; ++bit) {
            uint64_t c = uint32_t(1) << bit;
            for (size_t i = 0; i < block / 8; ++i) {
                c = _mm_crc32_u64(c, 0);  // feeding zeros is exactly the shift
            }
            basis[bit] = static_cast<uint32_t>(c);
        }
        for (size_t k = 0; k < 4; ++k) {
            for (uint32_t b = 0; b < 256; ++b) {
                uint32_t v = 0;
                for (size_t bit = 0; bit < 8; ++bit) {
                    if (b & (1u << bit)) {
                        v ^= basis[8 * k + bit];
                    }
                }
                t[k][b] = v;
            }
        }
    }

    uint32_t operator()(uint32_t c) const {
        return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
    }
};

template <size_t Block>
__attribute__((target("sse4.2"))) uint32_t crc32c_raw_stripes(uint32_t crc, const uint8_t*& p,
                                                              size_t& n, const shift_table& shift) {
    static_assert(Block % 8 == 0);
    while (n >= 3 * Block) {
        uint64_t a = crc;
        uint64_t b = 0;
        uint64_t c = 0;
        for (size_t i = 0; i < Block; i += 8) {
            uint64_t va;
            uint64_t vb;
            uint64_t vc;
            std::memcpy(&va, p + i, 8);
            std::memcpy(&vb, p + Block + i, 8);
            std::memcpy(&vc, p + 2 * Block + i, 8);
            a = _mm_crc32_u64(a, va);
            b = _mm_crc32_u64(b, vb);
            c = _mm_crc32_u64(c, vc);
        }
        crc = shift(shift(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^
              static_cast<uint32_t>(c);
        p += 3 * Block;
        n -= 3 * Block;
    }
    return crc;
}

constexpr size_t k_long_block = 4096;
constexpr size_t k_short_block = 256;

uint32_t crc32c_hw(uint32_t crc, const uint8_t* p, size_t n) {
    static const shift_table long_shift(k_long_block);
    static const shift_table short_shift(k_short_block);
    uint32_t c = ~crc;
    c = crc32c_raw_stripes<k_long_block>(c, p, n, long_shift);
    c = crc32c_raw_stripes<k_short_block>(c, p, n, short_shift);
    return ~crc32c_raw_serial(c, p, n);
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
