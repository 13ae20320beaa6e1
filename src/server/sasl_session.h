#pragma once
// sasl_session: where one connection of a SASL listener stands in its
// authentication (Kafka's SaslServerAuthenticator). Until it is
// authenticated the connection serves ApiVersions, SaslHandshake and
// SaslAuthenticate only (server/connection.cc closes it on anything else);
// a failed exchange is answered, then the connection closes.
#include <memory>
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
};

}  // namespace samsa::server
