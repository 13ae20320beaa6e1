#pragma once
// Decoding of Kafka's primitive types from a byte buffer. A failed read (short
// buffer, negative length where none is allowed, overlong varint) makes the
// reader "failed": every later read returns a zero value, and the caller checks
// ok() once at the end. No exceptions, no allocation beyond the returned value.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/uuid.h"
#include "protocol/records.h"
#include "protocol/tagged_fields.h"

namespace samsa::protocol {

class reader {
  public:
    explicit reader(bytes_view buf) : _p(buf.data()), _end(buf.data() + buf.size()) {}

    bool ok() const { return !_failed; }
    void fail() {
        _failed = true;
        _p = _end;
    }
    size_t remaining() const { return size_t(_end - _p); }
    const uint8_t* position() const { return _p; }

    bool read_bool() { return read_int8() != 0; }
    int8_t read_int8();
    int16_t read_int16();
    uint16_t read_uint16();
    int32_t read_int32();
    uint32_t read_uint32();
    int64_t read_int64();
    double read_float64();
    uint32_t read_uvarint();
    int32_t read_varint();
    int64_t read_varlong();
    uuid read_uuid();

    std::string read_string();
    std::optional<std::string> read_nullable_string();
    std::string read_compact_string();
    std::optional<std::string> read_compact_nullable_string();

    bytes read_bytes();
    std::optional<bytes> read_nullable_bytes();
    bytes read_compact_bytes();
    std::optional<bytes> read_compact_nullable_bytes();

    records read_records();          // int32 length, -1 = null
    records read_compact_records();  // uvarint length + 1, 0 = null

    // Array lengths; -1 means null. A length larger than the bytes left fails the
    // reader (every element takes at least one byte), so a hostile length cannot
    // make us allocate.
    int32_t read_array_length();
    int32_t read_compact_array_length();

    bytes_view read_raw(size_t n);

    // Reads the count and calls `on_field(tag, size)` for each tagged field;
    // `on_field` must consume exactly `size` bytes (or call skip_tagged / store it).
    template <typename OnField>
    void read_tagged_fields(OnField&& on_field) {
        uint32_t n = read_uvarint();
        int64_t last = -1;
        for (uint32_t i = 0; i < n && ok(); ++i) {
            uint32_t tag = read_uvarint();
            uint32_t size = read_uvarint();
            if (!ok() || int64_t(tag) <= last || size > remaining()) {
                fail();
                return;
            }
            last = tag;
            const uint8_t* start = _p;
            on_field(tag, size);
            if (ok() && _p != start + size) {
                fail();  // a known field whose encoding disagrees with its size
            }
        }
    }
    void store_unknown_tag(unknown_tagged_fields& out, uint32_t tag, uint32_t size) {
        bytes_view v = read_raw(size);
        out.push_back({tag, bytes(v.begin(), v.end())});
    }

  private:
    bool need(size_t n) {
        if (size_t(_end - _p) < n) {
            fail();
            return false;
        }
        return true;
    }

    const uint8_t* _p;
    const uint8_t* _end;
    bool _failed = false;
};

}  // namespace samsa::protocol
