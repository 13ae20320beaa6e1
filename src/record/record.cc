#include "record/record.h"

#include <string>

#include "common/varint.h"

namespace samsa::record {

namespace {

// Reads fields from [p, end); every read checks the bound first.
struct cursor {
    const uint8_t* p;
    const uint8_t* end;

    size_t remaining() const { return size_t(end - p); }

    bool varint(int32_t* v) {
        size_t n = decode_varint32(p, end, v);
        p += n;
        return n != 0;
    }
    bool varlong(int64_t* v) {
        size_t n = decode_varint64(p, end, v);
        p += n;
        return n != 0;
    }
    bool take(size_t n, bytes_view* out) {
        if (n > remaining()) {
            return false;
        }
        *out = bytes_view(p, n);
        p += n;
        return true;
    }
    // A varint length then that many bytes; length -1 is null, below -1 invalid.
    bool nullable_bytes(std::optional<bytes_view>* out) {
        int32_t len = 0;
        if (!varint(&len) || len < -1) {
            return false;
        }
        if (len == -1) {
            out->reset();
            return true;
        }
        bytes_view b;
        if (!take(size_t(len), &b)) {
            return false;
        }
        *out = b;
        return true;
    }
};

error invalid(std::string msg) {
    return error(error_code::invalid_record, std::move(msg));
}

size_t nullable_size(const std::optional<bytes_view>& b) {
    if (!b) {
        return varint32_size(-1);
    }
    return varint32_size(int32_t(b->size())) + b->size();
}

void put_varint(bytes& out, int32_t v) {
    uint8_t buf[max_varint32_bytes];
    out.insert(out.end(), buf, buf + encode_varint32(buf, v));
}

void put_varlong(bytes& out, int64_t v) {
    uint8_t buf[max_varint64_bytes];
    out.insert(out.end(), buf, buf + encode_varint64(buf, v));
}

void put_nullable(bytes& out, const std::optional<bytes_view>& b) {
    if (!b) {
        put_varint(out, -1);
        return;
    }
    put_varint(out, int32_t(b->size()));
    out.insert(out.end(), b->begin(), b->end());
}

}  // namespace

result<size_t> decode_record(bytes_view in, record& out) {
    cursor c{in.data(), in.data() + in.size()};
    int32_t body = 0;
    if (!c.varint(&body)) {
        return invalid("Found invalid record structure: bad record length varint");
    }
    if (body < 0 || size_t(body) > c.remaining()) {
        return invalid("Invalid record size: expected " + std::to_string(body) +
                       " bytes in record payload, but only " + std::to_string(c.remaining()) +
                       " remain");
    }
    // From here on the record may not read past its own declared body.
    const uint8_t* body_end = c.p + body;
    cursor b{c.p, body_end};

    bytes_view attr;
    if (!b.take(1, &attr) || !b.varlong(&out.timestamp_delta) || !b.varint(&out.offset_delta) ||
        !b.nullable_bytes(&out.key) || !b.nullable_bytes(&out.value)) {
        return invalid("Found invalid record structure");
    }
    out.attributes = int8_t(attr[0]);

    int32_t header_count = 0;
    if (!b.varint(&header_count)) {
        return invalid("Found invalid record structure: bad header count");
    }
    if (header_count < 0) {
        return invalid("Found invalid number of record headers " + std::to_string(header_count));
    }
    // Each header takes at least two bytes; refuse counts the body cannot hold
    // before reserving anything.
    if (size_t(header_count) > b.remaining() / 2) {
        return invalid("Found invalid number of record headers. " + std::to_string(header_count) +
                       " is larger than the remaining size of the record");
    }
    out.headers.clear();
    out.headers.reserve(size_t(header_count));
    for (int32_t i = 0; i < header_count; ++i) {
        int32_t key_len = 0;
        if (!b.varint(&key_len)) {
            return invalid("Found invalid record structure: bad header key length");
        }
        if (key_len < 0) {
            return invalid("Invalid negative header key size " + std::to_string(key_len));
        }
        bytes_view key;
        record_header h;
        if (!b.take(size_t(key_len), &key) || !b.nullable_bytes(&h.value)) {
            return invalid("Found invalid record structure: truncated header");
        }
        h.key = as_string_view(key);
        out.headers.push_back(h);
    }
    if (b.p != body_end) {
        return invalid("Invalid record size: expected to read " + std::to_string(body) +
                       " bytes in record payload, but instead read " +
                       std::to_string(body - int32_t(body_end - b.p)));
    }
    out.size_bytes = size_t(body_end - in.data());
    return out.size_bytes;
}

size_t record_body_size(const record& r) {
    size_t n = 1 + varint64_size(r.timestamp_delta) + varint32_size(r.offset_delta) +
               nullable_size(r.key) + nullable_size(r.value) +
               varint32_size(int32_t(r.headers.size()));
    for (const auto& h : r.headers) {
        n += varint32_size(int32_t(h.key.size())) + h.key.size() + nullable_size(h.value);
    }
    return n;
}

size_t encoded_record_size(const record& r) {
    size_t body = record_body_size(r);
    return varint32_size(int32_t(body)) + body;
}

void encode_record(const record& r, bytes& out) {
    // No reserve() here: an exact reserve per record would defeat the vector's
    // geometric growth and make building a batch quadratic.
    size_t body = record_body_size(r);
    put_varint(out, int32_t(body));
    out.push_back(uint8_t(r.attributes));
    put_varlong(out, r.timestamp_delta);
    put_varint(out, r.offset_delta);
    put_nullable(out, r.key);
    put_nullable(out, r.value);
    put_varint(out, int32_t(r.headers.size()));
    for (const auto& h : r.headers) {
        put_varint(out, int32_t(h.key.size()));
        out.insert(out.end(), h.key.begin(), h.key.end());
        put_nullable(out, h.value);
    }
}

}  // namespace samsa::record
