#pragma once
// Encoding of Kafka's primitive types. Bytes go into a growable buffer; a
// `records` value made of file ranges is not copied: the writer notes a splice
// (buffer position + file range), and the connection sends buffer slices and
// file ranges in order (protocol/records.h).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.h"
#include "common/uuid.h"
#include "protocol/records.h"
#include "protocol/tagged_fields.h"

namespace samsa::protocol {

struct splice {
    size_t position = 0;  // offset in the buffer before which the file bytes go
    file_range file;
};

class writer {
  public:
    writer() = default;

    bytes& buffer() { return _buf; }
    const bytes& buffer() const { return _buf; }
    std::vector<splice>& splices() { return _splices; }
    const std::vector<splice>& splices() const { return _splices; }
    // Bytes written so far, counting spliced file ranges.
    uint64_t size() const { return _buf.size() + _spliced; }

    void write_bool(bool v) { write_int8(v ? 1 : 0); }
    void write_int8(int8_t v) { _buf.push_back(uint8_t(v)); }
    void write_int16(int16_t v);
    void write_uint16(uint16_t v);
    void write_int32(int32_t v);
    void write_uint32(uint32_t v);
    void write_int64(int64_t v);
    void write_float64(double v);
    void write_uvarint(uint32_t v);
    void write_varint(int32_t v);
    void write_varlong(int64_t v);
    void write_uuid(const uuid& u);

    void write_string(std::string_view s);
    void write_nullable_string(const std::optional<std::string>& s);
    void write_compact_string(std::string_view s);
    void write_compact_nullable_string(const std::optional<std::string>& s);

    void write_bytes(bytes_view b);
    void write_nullable_bytes(const std::optional<bytes>& b);
    void write_compact_bytes(bytes_view b);
    void write_compact_nullable_bytes(const std::optional<bytes>& b);

    void write_records(const records& r);
    void write_compact_records(const records& r);

    void write_array_length(int32_t n) { write_int32(n); }
    void write_compact_array_length(int32_t n) { write_uvarint(uint32_t(n + 1)); }

    void write_raw(bytes_view b) { _buf.insert(_buf.end(), b.begin(), b.end()); }
    void write_unknown_tag(const raw_tagged_field& f);

    // Writes one tagged field whose body is produced by `body(writer&)`.
    template <typename Body>
    void write_tagged_field(uint32_t tag, Body&& body) {
        writer tmp;
        body(tmp);
        write_uvarint(tag);
        write_uvarint(uint32_t(tmp._buf.size()));
        write_raw(tmp._buf);
    }

    // Patches a big-endian int32 at `pos` (frame sizes).
    void patch_int32(size_t pos, int32_t v) { store_be32(_buf.data() + pos, uint32_t(v)); }

  private:
    void write_records_body(const records& r);

    bytes _buf;
    std::vector<splice> _splices;
    uint64_t _spliced = 0;
};

}  // namespace samsa::protocol
