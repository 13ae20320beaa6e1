#pragma once
// sasl_server: the broker's side of one SASL exchange (RFC 4422) for one
// mechanism, fed the client's tokens from SaslAuthenticate one at a time.
#include <cstdint>
#include <memory>
#include <string>

#include "common/bytes.h"
#include "common/result.h"

namespace samsa::security::sasl {

struct sasl_step {
    bytes challenge;  // the server's answer token (may be empty)
    bool complete = false;
    std::string user;  // once complete: the authenticated user (principal User:<user>)
};

class sasl_server {
  public:
    virtual ~sasl_server() = default;
    // SASL_AUTHENTICATION_FAILED (with Kafka's message) when the client fails
    // to authenticate; ILLEGAL_SASL_STATE for a token out of turn.
    virtual result<sasl_step> evaluate(bytes_view client_token) = 0;
};

}  // namespace samsa::security::sasl
