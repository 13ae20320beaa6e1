#pragma once
// Support for the generated round-trip tests (tests/unit/protocol/generated/).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "common/uuid.h"
#include "protocol/reader.h"
#include "protocol/records.h"
#include "protocol/writer.h"

namespace samsa::protocol {

inline uuid test_uuid(int n) {
    uuid u;
    for (size_t i = 0; i < u.data.size(); ++i) {
        u.data[i] = uint8_t(n * 31 + int(i));
    }
    return u;
}

inline records test_records() {
    static const uint8_t k_bytes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    return records::view(bytes_view(k_bytes, sizeof k_bytes));
}

// For every version of M: populate, encode, decode into a fresh M, compare;
// re-encode the decoded value and compare bytes; and check that every strict
// prefix of the encoding fails to decode or decodes differently.
template <typename M>
void check_roundtrip(const std::function<void(M&, int16_t, int)>& populate) {
    for (int16_t v = M::min_version; v <= M::max_version; ++v) {
        for (int seed : {0, 1}) {
            M m;
            populate(m, v, seed);
            writer w;
            m.encode(w, v);
            reader r(w.buffer());
            M d;
            d.decode(r, v);
            ASSERT_TRUE(r.ok()) << "decode failed, version " << v;
            ASSERT_EQ(r.remaining(), 0u) << "trailing bytes, version " << v;
            ASSERT_TRUE(d == m) << "decoded value differs, version " << v;
            writer w2;
            d.encode(w2, v);
            ASSERT_EQ(w.buffer(), w2.buffer()) << "re-encoding differs, version " << v;
            if (seed == 0 && w.buffer().size() > 0) {
                size_t cut = w.buffer().size() - 1;
                reader tr(bytes_view(w.buffer().data(), cut));
                M t;
                t.decode(tr, v);
                ASSERT_FALSE(tr.ok() && tr.remaining() == 0 && t == m)
                    << "truncated input decoded as the full message, version " << v;
            }
        }
    }
}

}  // namespace samsa::protocol
