#pragma once
// Helpers shared by the record room's tests.
#include <string>
#include <vector>

#include "common/crc32c.h"
#include "record/batch_builder.h"
#include "record/batch_iterator.h"

namespace samsa::record::test {

// A batch of `n` records "k<i>" -> "v<i>" with timestamps ts0 + i.
inline bytes make_batch(int n, batch_options opts = {}, int64_t ts0 = 1000) {
    std::vector<std::string> keys, values;
    for (int i = 0; i < n; ++i) {
        keys.push_back("k" + std::to_string(i));
        values.push_back("v" + std::to_string(i));
    }
    batch_builder b(opts);
    for (int i = 0; i < n; ++i) {
        b.add(ts0 + i, as_bytes_view(keys[size_t(i)]), as_bytes_view(values[size_t(i)]));
    }
    return std::move(b.build()).value();
}

// Recomputes the CRC after a test has edited fields inside it.
inline void fix_crc(bytes& batch) {
    store_be32(batch.data() + crc_offset,
               crc32c(batch.data() + attributes_offset, batch.size() - attributes_offset));
}

inline batch_header header_of(const bytes& batch) {
    return decode_batch_header(batch.data());
}

// Every record of a batch, with its key and value copied out.
struct plain_record {
    int64_t offset;
    int64_t timestamp;
    std::optional<std::string> key, value;
    std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

inline std::optional<std::string> str(const std::optional<bytes_view>& b) {
    if (!b) {
        return std::nullopt;
    }
    return std::string(as_string_view(*b));
}

inline std::vector<plain_record> read_all(bytes_view batch) {
    std::vector<plain_record> out;
    auto it = record_iterator::open(batch);
    if (!it) {
        ADD_FAILURE() << "open failed: " << it.err().message;
        return out;
    }
    record r;
    while (true) {
        auto more = it->next(r);
        if (!more) {
            ADD_FAILURE() << "next failed: " << more.err().message;
            return out;
        }
        if (!*more) {
            break;
        }
        plain_record p{it->offset_of(r), it->timestamp_of(r), str(r.key), str(r.value), {}};
        for (const auto& h : r.headers) {
            p.headers.emplace_back(std::string(h.key), str(h.value));
        }
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace samsa::record::test
