#include "protocol/writer.h"

#include <cstring>

#include "common/varint.h"

namespace samsa::protocol {

void writer::write_int16(int16_t v) {
    write_uint16(uint16_t(v));
}

void writer::write_uint16(uint16_t v) {
    uint8_t b[2];
    store_be16(b, v);
    _buf.insert(_buf.end(), b, b + 2);
}

void writer::write_int32(int32_t v) {
    write_uint32(uint32_t(v));
}

void writer::write_uint32(uint32_t v) {
    uint8_t b[4];
    store_be32(b, v);
    _buf.insert(_buf.end(), b, b + 4);
}

void writer::write_int64(int64_t v) {
    uint8_t b[8];
    store_be64(b, uint64_t(v));
    _buf.insert(_buf.end(), b, b + 8);
}

void writer::write_float64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    write_int64(int64_t(bits));
}

void writer::write_uvarint(uint32_t v) {
    uint8_t b[max_varint32_bytes];
    size_t n = encode_uvarint32(b, v);
    _buf.insert(_buf.end(), b, b + n);
}

void writer::write_varint(int32_t v) {
    write_uvarint(zigzag_encode32(v));
}

void writer::write_varlong(int64_t v) {
    uint8_t b[max_varint64_bytes];
    size_t n = encode_varint64(b, v);
    _buf.insert(_buf.end(), b, b + n);
}

void writer::write_uuid(const uuid& u) {
    _buf.insert(_buf.end(), u.data.begin(), u.data.end());
}

void writer::write_string(std::string_view s) {
    write_int16(int16_t(s.size()));
    write_raw(as_bytes_view(s));
}

void writer::write_nullable_string(const std::optional<std::string>& s) {
    if (!s) {
        write_int16(-1);
        return;
    }
    write_string(*s);
}

void writer::write_compact_string(std::string_view s) {
    write_uvarint(uint32_t(s.size() + 1));
    write_raw(as_bytes_view(s));
}

void writer::write_compact_nullable_string(const std::optional<std::string>& s) {
    if (!s) {
        write_uvarint(0);
        return;
    }
    write_compact_string(*s);
}

void writer::write_bytes(bytes_view b) {
    write_int32(int32_t(b.size()));
    write_raw(b);
}

void writer::write_nullable_bytes(const std::optional<bytes>& b) {
    if (!b) {
        write_int32(-1);
        return;
    }
    write_bytes(*b);
}

void writer::write_compact_bytes(bytes_view b) {
    write_uvarint(uint32_t(b.size() + 1));
    write_raw(b);
}

void writer::write_compact_nullable_bytes(const std::optional<bytes>& b) {
    if (!b) {
        write_uvarint(0);
        return;
    }
    write_compact_bytes(*b);
}

void writer::write_records_body(const records& r) {
    for (const auto& piece : r.pieces()) {
        if (!piece.is_file) {
            write_raw(piece.memory);
            continue;
        }
        _splices.push_back({_buf.size(), piece.file});
        _spliced += piece.file.length;
    }
}

void writer::write_records(const records& r) {
    if (r.is_null()) {
        write_int32(-1);
        return;
    }
    write_int32(int32_t(r.size()));
    write_records_body(r);
}

void writer::write_compact_records(const records& r) {
    if (r.is_null()) {
        write_uvarint(0);
        return;
    }
    write_uvarint(uint32_t(r.size() + 1));
    write_records_body(r);
}

void writer::write_unknown_tag(const raw_tagged_field& f) {
    write_uvarint(f.tag);
    write_uvarint(uint32_t(f.data.size()));
    write_raw(f.data);
}

}  // namespace samsa::protocol
