#pragma once
// SaslHandshake (key 17), v0-1: the client names a mechanism. After v1 the
// exchange goes on in SaslAuthenticate (KIP-152); after v0 the tokens follow
// as bare size-prefixed frames (server/connection.cc).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler sasl_handshake_handler();

}  // namespace samsa::server::handlers
