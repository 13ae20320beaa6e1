#pragma once
// Field-level helpers used by the generated codecs: each picks the classic or
// the compact (flexible-version) encoding of a string, bytes, array or records
// field. Kept out of the generated headers so handlers do not include them.
#include <optional>
#include <string>

#include "protocol/reader.h"
#include "protocol/writer.h"

namespace samsa::protocol {

inline void write_null_array(writer& w, bool flexible) {
    if (flexible) {
        w.write_uvarint(0);
    } else {
        w.write_int32(-1);
    }
}

inline void write_array_length(writer& w, bool flexible, size_t n) {
    if (flexible) {
        w.write_compact_array_length(int32_t(n));
    } else {
        w.write_array_length(int32_t(n));
    }
}

inline int32_t read_array_length(reader& r, bool flexible) {
    return flexible ? r.read_compact_array_length() : r.read_array_length();
}

inline void write_string_field(writer& w, bool flexible, std::string_view s) {
    if (flexible) {
        w.write_compact_string(s);
    } else {
        w.write_string(s);
    }
}

inline void write_nullable_string_field(writer& w, bool flexible,
                                        const std::optional<std::string>& s) {
    if (flexible) {
        w.write_compact_nullable_string(s);
    } else {
        w.write_nullable_string(s);
    }
}

inline std::string read_string_field(reader& r, bool flexible) {
    return flexible ? r.read_compact_string() : r.read_string();
}

inline std::optional<std::string> read_nullable_string_field(reader& r, bool flexible,
                                                             bool nullable) {
    auto s = flexible ? r.read_compact_nullable_string() : r.read_nullable_string();
    if (!s && !nullable) {
        r.fail();
    }
    return s;
}

inline void write_bytes_field(writer& w, bool flexible, bytes_view b) {
    if (flexible) {
        w.write_compact_bytes(b);
    } else {
        w.write_bytes(b);
    }
}

inline void write_nullable_bytes_field(writer& w, bool flexible, const std::optional<bytes>& b) {
    if (flexible) {
        w.write_compact_nullable_bytes(b);
    } else {
        w.write_nullable_bytes(b);
    }
}

inline bytes read_bytes_field(reader& r, bool flexible) {
    return flexible ? r.read_compact_bytes() : r.read_bytes();
}

inline std::optional<bytes> read_nullable_bytes_field(reader& r, bool flexible, bool nullable) {
    auto b = flexible ? r.read_compact_nullable_bytes() : r.read_nullable_bytes();
    if (!b && !nullable) {
        r.fail();
    }
    return b;
}

inline void write_records_field(writer& w, bool flexible, const records& rec) {
    if (flexible) {
        w.write_compact_records(rec);
    } else {
        w.write_records(rec);
    }
}

inline records read_records_field(reader& r, bool flexible, bool nullable) {
    records rec = flexible ? r.read_compact_records() : r.read_records();
    if (rec.is_null() && !nullable && r.ok()) {
        r.fail();
    }
    return rec;
}

}  // namespace samsa::protocol
