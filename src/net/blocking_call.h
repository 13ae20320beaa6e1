#pragma once
// One Kafka request from a thread that is not a reactor (the CLI): opens a
// connection to host:port, sends the request, waits for its answer or the
// timeout, and closes. The body of the answer after its response header, or
// why there is none (NETWORK_EXCEPTION, REQUEST_TIMED_OUT).
//
//   auto body = net::call_blocking({host, port, "samsa-topics", 5s},
//                                  metadata_request::api_key, 12, encoded);
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "security/client_security.h"

namespace samsa::net {

struct blocking_target {
    std::string host;
    uint16_t port = 0;
    std::string client_id;
    std::chrono::milliseconds timeout{5000};
    // TLS and/or a SASL login for the listener (null: plaintext).
    std::shared_ptr<const security::client_security> security;
};

result<bytes> call_blocking(const blocking_target& to, int16_t api_key, int16_t api_version,
                            bytes body);

// A typed request: encoded in `version`, its answer decoded in the same.
template <typename Response, typename Request>
result<Response> call_blocking(const blocking_target& to, const Request& request, int16_t version);

}  // namespace samsa::net

#include "protocol/message_codec.h"

namespace samsa::net {

template <typename Response, typename Request>
result<Response> call_blocking(const blocking_target& to, const Request& request, int16_t version) {
    auto body =
        call_blocking(to, Request::api_key, version, protocol::encode_message(request, version));
    if (!body) {
        return body.err();
    }
    auto resp = protocol::decode_message<Response>(*body, version);
    if (!resp) {
        return error(error_code::corrupt_message, "the answer did not decode");
    }
    return std::move(*resp);
}

}  // namespace samsa::net
