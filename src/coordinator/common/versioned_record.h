#pragma once
// The records coordinators keep in their internal topics (__consumer_offsets,
// __transaction_state) start with an int16 version that says which schema of
// the generated message follows, in the non-flexible or flexible encoding
// that version has.
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace samsa::coordinator {

template <typename Message>
bytes encode_versioned(const Message& m, int16_t version) {
    protocol::writer w;
    w.write_int16(version);
    m.encode(w, version);
    return std::move(w.buffer());
}

// Decodes Message in `version` from the rest of `r`; the whole input must be
// used. CORRUPT_MESSAGE otherwise.
template <typename Message>
result<Message> decode_rest(protocol::reader& r, int16_t version, const char* what) {
    Message m;
    m.decode(r, version);
    if (!r.ok() || r.remaining() != 0) {
        return error(error_code::corrupt_message,
                     std::string("malformed ") + what + " version " + std::to_string(version));
    }
    return m;
}

}  // namespace samsa::coordinator
