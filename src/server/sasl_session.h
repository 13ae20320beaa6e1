#pragma once
// sasl_session: where one connection of a SASL listener stands in its
// authentication (Kafka's SaslServerAuthenticator). Until it is
// authenticated the connection serves ApiVersions, SaslHandshake and
// SaslAuthenticate only (server/connection.cc closes it on anything else);
// a failed exchange is answered, then the connection closes.
// Once authenticated, a client that used SaslAuthenticate v1+ may start over
// with SaslHandshake to re-authenticate, with the same mechanism and
// principal (KIP-368).
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "security/sasl/sasl_listener.h"

namespace samsa::server {

struct sasl_session {
    enum class state : uint8_t { handshake, authenticate, authenticated };

    std::shared_ptr<const security::sasl::sasl_listener_config> config;
    state st = state::handshake;
    std::string mechanism;
    std::unique_ptr<security::sasl::sasl_server> exchange;
    std::string principal;              // "User:<name>" once authenticated
    bool close_after_response = false;  // the exchange failed
    // SaslHandshake v0: the tokens follow as bare frames, not SaslAuthenticate.
    bool raw_tokens = false;

    // Re-authentication (KIP-368). A session of a mechanism with
    // connections.max.reauth.ms ends then; a request after that closes the
    // connection, unless it is the SaslHandshake of a re-authentication.
    std::optional<std::chrono::steady_clock::time_point> expires;
    bool client_supports_reauth = false;  // it sent SaslAuthenticate v1+
    bool reauthenticating = false;
    std::string previous_principal;
    // A re-authentication that asked for another mechanism fails with this.
    std::string bad_reauth_mechanism;

    bool expired(std::chrono::steady_clock::time_point now) const {
        return st == state::authenticated && expires && now >= *expires;
    }
};

}  // namespace samsa::server
