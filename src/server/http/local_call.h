#pragma once
// A Kafka request made by the admin API itself: encoded as a client would,
// run by this broker's own handler for it on a reactor, and decoded, with
// the HTTP caller's principal. So a change made over HTTP is exactly the
// Kafka request it stands for: the same validation, the same forwarding to
// the active controller, the same authorization (KIP-11) and the same
// errors.
//
//   auto resp = call_local<create_topics_response>(target, who, request, 7, 30s);
//
// Blocks the calling (civetweb) thread until the handler answers or the
// timeout passes; never runs on a reactor.
#include <chrono>
#include <cstdint>
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "protocol/message_codec.h"
#include "security/client_security.h"

namespace samsa::server {
struct broker_context;
class reactor_pool;
}  // namespace samsa::server

namespace samsa::server::http {

// Where the requests run. The pointers outlive the HTTP listener.
struct local_target {
    broker_context* broker = nullptr;
    reactor_pool* reactors = nullptr;
    std::string listener_name;  // a client listener, as if the request came in on it
    // How to reach that listener on the other brokers (null: plaintext).
    std::shared_ptr<const security::client_security> security;
};

// Who asks: "User:<name>" after HTTP Basic sign-in, else User:ANONYMOUS.
struct local_caller {
    std::string principal = "User:ANONYMOUS";
    std::string client_host;
};

// The response body, or why there is none: UNSUPPORTED_VERSION (no handler
// for that version), REQUEST_TIMED_OUT, INVALID_REQUEST (the handler
// refused the request as malformed).
result<bytes> call_local(const local_target& to, const local_caller& who, int16_t api_key,
                         int16_t api_version, bytes body, std::chrono::milliseconds timeout);

template <typename Response, typename Request>
result<Response> call_local(const local_target& to, const local_caller& who, const Request& request,
                            int16_t version, std::chrono::milliseconds timeout) {
    auto body = call_local(to, who, Request::api_key, version,
                           protocol::encode_message(request, version), timeout);
    if (!body) {
        return body.err();
    }
    auto resp = protocol::decode_message<Response>(*body, version);
    if (!resp) {
        return error(error_code::unknown_server_error, "the handler's answer did not decode");
    }
    return std::move(*resp);
}

}  // namespace samsa::server::http
