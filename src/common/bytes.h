#pragma once
// Byte containers and big-endian helpers shared by every room.
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace samsa {

using bytes = std::vector<uint8_t>;
using bytes_view = std::span<const uint8_t>;

inline bytes_view as_bytes_view(std::string_view s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
inline std::string_view as_string_view(bytes_view b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

inline uint16_t load_be16(const uint8_t* p) {
    return uint16_t(p[0]) << 8 | p[1];
}
inline uint32_t load_be32(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline uint64_t load_be64(const uint8_t* p) {
    return uint64_t(load_be32(p)) << 32 | load_be32(p + 4);
}
inline void store_be16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v >> 8);
    p[1] = uint8_t(v);
}
inline void store_be32(uint8_t* p, uint32_t v) {
    p[0] = uint8_t(v >> 24);
    p[1] = uint8_t(v >> 16);
    p[2] = uint8_t(v >> 8);
    p[3] = uint8_t(v);
}
inline void store_be64(uint8_t* p, uint64_t v) {
    store_be32(p, uint32_t(v >> 32));
    store_be32(p + 4, uint32_t(v));
}

}  // namespace samsa
