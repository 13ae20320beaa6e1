#include "common/uuid.h"

#include <cstring>
#include <random>

namespace samsa {

namespace {

constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int decode_char(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '-') {
        return 62;
    }
    if (c == '_') {
        return 63;
    }
    return -1;
}

}  // namespace

bool uuid::is_zero() const {
    for (auto b : data) {
        if (b) {
            return false;
        }
    }
    return true;
}

std::string uuid::to_string() const {
    std::string out;
    out.reserve(22);
    size_t i = 0;
    for (; i + 3 <= data.size(); i += 3) {
        uint32_t v = uint32_t(data[i]) << 16 | uint32_t(data[i + 1]) << 8 | data[i + 2];
        out += k_alphabet[(v >> 18) & 63];
        out += k_alphabet[(v >> 12) & 63];
        out += k_alphabet[(v >> 6) & 63];
        out += k_alphabet[v & 63];
    }
    // 16 = 5*3 + 1: one byte left, two characters, no padding.
    uint32_t v = uint32_t(data[15]) << 16;
    out += k_alphabet[(v >> 18) & 63];
    out += k_alphabet[(v >> 12) & 63];
    return out;
}

std::optional<uuid> uuid::parse(std::string_view s) {
    if (s.size() != 22) {
        return std::nullopt;
    }
    uuid u;
    uint32_t acc = 0;
    int bits = 0;
    size_t pos = 0;
    for (char c : s) {
        int d = decode_char(c);
        if (d < 0) {
            return std::nullopt;
        }
        acc = (acc << 6) | uint32_t(d);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (pos < 16) {
                u.data[pos++] = uint8_t(acc >> bits);
            }
        }
    }
    if (pos != 16 || (acc & ((1u << bits) - 1)) != 0) {
        return std::nullopt;
    }
    return u;
}

uuid uuid::random() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    for (;;) {
        uuid u;
        uint64_t hi = rng();
        uint64_t lo = rng();
        std::memcpy(u.data.data(), &hi, 8);
        std::memcpy(u.data.data() + 8, &lo, 8);
        u.data[6] = (u.data[6] & 0x0f) | 0x40;  // version 4
        u.data[8] = (u.data[8] & 0x3f) | 0x80;  // IETF variant
        // METADATA_TOPIC_ID is 0...01; version bits already exclude it and zero.
        if (u.to_string()[0] == '-') {
            continue;
        }
        return u;
    }
}

size_t uuid_hash::operator()(const uuid& u) const {
    uint64_t a;
    uint64_t b;
    std::memcpy(&a, u.data.data(), 8);
    std::memcpy(&b, u.data.data() + 8, 8);
    return std::hash<uint64_t>{}(a ^ (b * 0x9e3779b97f4a7c15ULL));
}

}  // namespace samsa
