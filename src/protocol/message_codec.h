#pragma once
// A whole message body to bytes and back, in one version: what a client of
// the protocol (the forwarding frontend, the CLI's blocking calls) does with
// a generated request and its response.
#include <optional>

#include "common/bytes.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace samsa::protocol {

template <typename Message>
bytes encode_message(const Message& m, int16_t version) {
    writer w;
    m.encode(w, version);
    return std::move(w.buffer());
}

// nullopt when the bytes are not a `Message` of that version.
template <typename Message>
std::optional<Message> decode_message(bytes_view body, int16_t version) {
    Message m;
    reader r(body);
    m.decode(r, version);
    if (!r.ok()) {
        return std::nullopt;
    }
    return m;
}

}  // namespace samsa::protocol
