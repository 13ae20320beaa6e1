#include "coordinator/group/group_partitioner.h"

namespace samsa::coordinator {

namespace {

constexpr uint32_t replacement_char = 0xFFFD;

// Decodes one code point starting at s[i]; advances i past what it consumed.
// A malformed sequence yields U+FFFD and consumes its maximal subpart (the
// longest prefix of a valid sequence, or one byte), the replacement Unicode
// recommends and Java's UTF-8 decoder makes.
uint32_t next_code_point(std::string_view s, size_t& i) {
    const auto byte = [&](size_t k) { return uint8_t(s[k]); };
    const uint8_t b0 = byte(i);
    if (b0 < 0x80) {
        ++i;
        return b0;
    }
    size_t need = 0;
    uint32_t cp = 0;
    uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
        cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        cp = b0 & 0x0F;
        if (b0 == 0xE0) {
            lo = 0xA0;  // no overlong forms
        } else if (b0 == 0xED) {
            hi = 0x9F;  // no encoded surrogates
        }
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        cp = b0 & 0x07;
        if (b0 == 0xF0) {
            lo = 0x90;
        } else if (b0 == 0xF4) {
            hi = 0x8F;  // nothing above U+10FFFF
        }
    } else {
        ++i;
        return replacement_char;
    }
    ++i;
    for (size_t k = 0; k < need; ++k) {
        if (i >= s.size()) {
            return replacement_char;
        }
        const uint8_t b = byte(i);
        const uint8_t min = k == 0 ? lo : 0x80;
        const uint8_t max = k == 0 ? hi : 0xBF;
        if (b < min || b > max) {
            return replacement_char;  // b starts the next sequence
        }
        cp = (cp << 6) | (b & 0x3F);
        ++i;
    }
    return cp;
}

}  // namespace

int32_t java_string_hash_code(std::string_view utf8) {
    uint32_t h = 0;  // unsigned: Java's int overflow wraps, C++'s signed one is undefined
    const auto add = [&h](uint32_t unit) { h = h * 31u + unit; };
    for (size_t i = 0; i < utf8.size();) {
        uint32_t cp = next_code_point(utf8, i);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            add(0xD800 + (cp >> 10));
            add(0xDC00 + (cp & 0x3FF));
        } else {
            add(cp);
        }
    }
    return int32_t(h);
}

}  // namespace samsa::coordinator
