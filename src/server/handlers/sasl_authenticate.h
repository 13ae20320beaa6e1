#pragma once
// SaslAuthenticate (key 36), v0-2: one SASL token of the exchange the
// handshake chose, answered with the server's token; a failure is answered
// with SASL_AUTHENTICATION_FAILED and Kafka's message, then the connection
// closes. session_lifetime_ms (v1+) is the mechanism's
// connections.max.reauth.ms (KIP-368; 0: the session does not expire); a
// re-authentication must keep the principal.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler sasl_authenticate_handler();

}  // namespace samsa::server::handlers
