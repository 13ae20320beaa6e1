#include "server/handlers/sasl_handshake.h"

#include "common/error.h"
#include "protocol/generated/sasl_handshake_request.h"
#include "protocol/generated/sasl_handshake_response.h"
#include "server/sasl_session.h"

namespace samsa::server::handlers {

namespace {

using protocol::sasl_handshake_request;
using protocol::sasl_handshake_response;

asio::awaitable<sasl_handshake_response> handle(request_context& ctx, sasl_handshake_request& req) {
    sasl_handshake_response resp;
    sasl_session* s = ctx.sasl;
    if (!s) {
        // Not a SASL listener (Kafka answers the same).
        resp.error_code = to_wire(error_code::illegal_sasl_state);
        co_return resp;
    }
    resp.mechanisms = s->config->mechanisms;
    const bool reauth = s->st == sasl_session::state::authenticated && s->client_supports_reauth &&
                        ctx.header.api_version >= 1;
    if (s->st != sasl_session::state::handshake && !reauth) {
        // A handshake mid-exchange, or after an authentication by a client
        // that cannot re-authenticate (SaslAuthenticate v0).
        resp.error_code = to_wire(error_code::illegal_sasl_state);
        s->close_after_response = true;
        co_return resp;
    }
    if (reauth) {
        s->reauthenticating = true;
        s->previous_principal = s->principal;
        if (req.mechanism != s->mechanism && s->config->enabled(req.mechanism)) {
            // Kafka answers this handshake, then fails the exchange.
            s->bad_reauth_mechanism = "SASL mechanism '" + req.mechanism +
                                      "' requested by client is not supported for "
                                      "re-authentication of mechanism '" +
                                      s->mechanism + "'";
            s->st = sasl_session::state::authenticate;
            co_return resp;
        }
    }
    auto exchange = s->config->new_server(
        req.mechanism,
        [&cache = ctx.broker->metadata](security::sasl::scram_mechanism m, const std::string& user)
            -> std::optional<security::sasl::scram_credential> {
            return cache.read()->find_scram_credential(user, m);
        },
        reauth);
    if (!exchange) {
        resp.error_code = to_wire(error_code::unsupported_sasl_mechanism);
        s->close_after_response = true;
        co_return resp;
    }
    s->mechanism = req.mechanism;
    s->exchange = std::move(exchange);
    s->st = sasl_session::state::authenticate;
    s->raw_tokens = ctx.header.api_version == 0;
    co_return resp;
}

}  // namespace

api_handler sasl_handshake_handler() {
    return {sasl_handshake_request::api_key, sasl_handshake_request::min_version,
            sasl_handshake_request::max_version,
            &typed_handler<sasl_handshake_request, sasl_handshake_response, &handle>};
}

}  // namespace samsa::server::handlers
