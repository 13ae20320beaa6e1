#include "protocol/reader.h"

#include <cstring>

#include "common/varint.h"

namespace samsa::protocol {

int8_t reader::read_int8() {
    if (!need(1)) {
        return 0;
    }
    return int8_t(*_p++);
}

int16_t reader::read_int16() {
    return int16_t(read_uint16());
}

uint16_t reader::read_uint16() {
    if (!need(2)) {
        return 0;
    }
    uint16_t v = load_be16(_p);
    _p += 2;
    return v;
}

int32_t reader::read_int32() {
    return int32_t(read_uint32());
}

uint32_t reader::read_uint32() {
    if (!need(4)) {
        return 0;
    }
    uint32_t v = load_be32(_p);
    _p += 4;
    return v;
}

int64_t reader::read_int64() {
    if (!need(8)) {
        return 0;
    }
    uint64_t v = load_be64(_p);
    _p += 8;
    return int64_t(v);
}

double reader::read_float64() {
    uint64_t bits = uint64_t(read_int64());
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

uint32_t reader::read_uvarint() {
    if (_failed) {
        return 0;
    }
    uint32_t v = 0;
    size_t n = decode_uvarint32(_p, _end, &v);
    if (n == 0) {
        fail();
        return 0;
    }
    _p += n;
    return v;
}

int32_t reader::read_varint() {
    return zigzag_decode32(read_uvarint());
}

int64_t reader::read_varlong() {
    if (_failed) {
        return 0;
    }
    uint64_t v = 0;
    size_t n = decode_uvarint64(_p, _end, &v);
    if (n == 0) {
        fail();
        return 0;
    }
    _p += n;
    return zigzag_decode64(v);
}

uuid reader::read_uuid() {
    uuid u;
    if (need(16)) {
        std::memcpy(u.data.data(), _p, 16);
        _p += 16;
    }
    return u;
}

bytes_view reader::read_raw(size_t n) {
    if (!need(n)) {
        return {};
    }
    bytes_view v(_p, n);
    _p += n;
    return v;
}

std::string reader::read_string() {
    int16_t n = read_int16();
    if (n < 0) {
        fail();
        return {};
    }
    return std::string(as_string_view(read_raw(size_t(n))));
}

std::optional<std::string> reader::read_nullable_string() {
    int16_t n = read_int16();
    if (n < 0 || !ok()) {
        if (n < -1) {
            fail();
        }
        return std::nullopt;
    }
    return std::string(as_string_view(read_raw(size_t(n))));
}

std::string reader::read_compact_string() {
    uint32_t n = read_uvarint();
    if (n == 0) {
        fail();
        return {};
    }
    return std::string(as_string_view(read_raw(n - 1)));
}

std::optional<std::string> reader::read_compact_nullable_string() {
    uint32_t n = read_uvarint();
    if (n == 0 || !ok()) {
        return std::nullopt;
    }
    return std::string(as_string_view(read_raw(n - 1)));
}

bytes reader::read_bytes() {
    int32_t n = read_int32();
    if (n < 0) {
        fail();
        return {};
    }
    bytes_view v = read_raw(size_t(n));
    return bytes(v.begin(), v.end());
}

std::optional<bytes> reader::read_nullable_bytes() {
    int32_t n = read_int32();
    if (n < 0 || !ok()) {
        if (n < -1) {
            fail();
        }
        return std::nullopt;
    }
    bytes_view v = read_raw(size_t(n));
    return bytes(v.begin(), v.end());
}

bytes reader::read_compact_bytes() {
    uint32_t n = read_uvarint();
    if (n == 0) {
        fail();
        return {};
    }
    bytes_view v = read_raw(n - 1);
    return bytes(v.begin(), v.end());
}

std::optional<bytes> reader::read_compact_nullable_bytes() {
    uint32_t n = read_uvarint();
    if (n == 0 || !ok()) {
        return std::nullopt;
    }
    bytes_view v = read_raw(n - 1);
    return bytes(v.begin(), v.end());
}

records reader::read_records() {
    int32_t n = read_int32();
    if (n < 0 || !ok()) {
        if (n < -1) {
            fail();
        }
        return records{};
    }
    return records::view(read_raw(size_t(n)));
}

records reader::read_compact_records() {
    uint32_t n = read_uvarint();
    if (n == 0 || !ok()) {
        return records{};
    }
    return records::view(read_raw(n - 1));
}

int32_t reader::read_array_length() {
    int32_t n = read_int32();
    if (n < -1 || (n > 0 && size_t(n) > remaining())) {
        fail();
        return 0;
    }
    return ok() ? n : 0;
}

int32_t reader::read_compact_array_length() {
    uint32_t n = read_uvarint();
    if (!ok()) {
        return 0;
    }
    if (n == 0) {
        return -1;
    }
    if (n - 1 > remaining()) {
        fail();
        return 0;
    }
    return int32_t(n - 1);
}

}  // namespace samsa::protocol
