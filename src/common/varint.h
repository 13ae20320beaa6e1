#pragma once
// Variable-length integers as Kafka encodes them (protobuf style, 7 bits per
// byte, least significant group first):
//  * unsigned varint: lengths in flexible protocol versions, tag numbers;
//  * varint / varlong: zigzag-encoded signed values, used inside record batches.
// Encoders return the number of bytes written (buffers need 5 / 10 bytes).
// Decoders return the number of bytes read, or 0 on truncated / overlong input.
#include <cstddef>
#include <cstdint>

namespace samsa {

inline constexpr size_t max_varint32_bytes = 5;
inline constexpr size_t max_varint64_bytes = 10;

inline uint32_t zigzag_encode32(int32_t v) {
    return (uint32_t(v) << 1) ^ uint32_t(v >> 31);
}
inline int32_t zigzag_decode32(uint32_t v) {
    return int32_t(v >> 1) ^ -int32_t(v & 1);
}
inline uint64_t zigzag_encode64(int64_t v) {
    return (uint64_t(v) << 1) ^ uint64_t(v >> 63);
}
inline int64_t zigzag_decode64(uint64_t v) {
    return int64_t(v >> 1) ^ -int64_t(v & 1);
}

inline size_t encode_uvarint32(uint8_t* out, uint32_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = uint8_t(v) | 0x80;
        v >>= 7;
    }
    out[n++] = uint8_t(v);
    return n;
}

inline size_t encode_uvarint64(uint8_t* out, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = uint8_t(v) | 0x80;
        v >>= 7;
    }
    out[n++] = uint8_t(v);
    return n;
}

inline size_t uvarint32_size(uint32_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}
inline size_t uvarint64_size(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}
inline size_t varint32_size(int32_t v) {
    return uvarint32_size(zigzag_encode32(v));
}
inline size_t varint64_size(int64_t v) {
    return uvarint64_size(zigzag_encode64(v));
}

inline size_t decode_uvarint32(const uint8_t* p, const uint8_t* end, uint32_t* out) {
    uint32_t v = 0;
    for (size_t i = 0; i < max_varint32_bytes; ++i) {
        if (p + i >= end) {
            return 0;
        }
        uint8_t b = p[i];
        if (i == 4 && (b & 0xf0) != 0) {
            return 0;  // more than 32 bits
        }
        v |= uint32_t(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

inline size_t decode_uvarint64(const uint8_t* p, const uint8_t* end, uint64_t* out) {
    uint64_t v = 0;
    for (size_t i = 0; i < max_varint64_bytes; ++i) {
        if (p + i >= end) {
            return 0;
        }
        uint8_t b = p[i];
        if (i == 9 && (b & 0xfe) != 0) {
            return 0;  // more than 64 bits
        }
        v |= uint64_t(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

inline size_t encode_varint32(uint8_t* out, int32_t v) {
    return encode_uvarint32(out, zigzag_encode32(v));
}
inline size_t encode_varint64(uint8_t* out, int64_t v) {
    return encode_uvarint64(out, zigzag_encode64(v));
}
inline size_t decode_varint32(const uint8_t* p, const uint8_t* end, int32_t* out) {
    uint32_t u = 0;
    size_t n = decode_uvarint32(p, end, &u);
    if (n) {
        *out = zigzag_decode32(u);
    }
    return n;
}
inline size_t decode_varint64(const uint8_t* p, const uint8_t* end, int64_t* out) {
    uint64_t u = 0;
    size_t n = decode_uvarint64(p, end, &u);
    if (n) {
        *out = zigzag_decode64(u);
    }
    return n;
}

}  // namespace samsa
