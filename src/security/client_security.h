#pragma once
// client_security: how this node speaks to another node's listener (the
// inter-broker or the controller listener): TLS when that listener is SSL or
// SASL_SSL, a SASL login when it is SASL_PLAINTEXT or SASL_SSL. Null (or
// both empty) is plaintext.
#include <memory>
#include <optional>

#include "security/sasl/sasl_client.h"
#include "security/tls_context.h"

namespace samsa::security {

struct client_security {
    std::shared_ptr<const client_tls> tls;       // null: no TLS
    std::optional<sasl::sasl_credentials> sasl;  // nullopt: no SASL
};

}  // namespace samsa::security
