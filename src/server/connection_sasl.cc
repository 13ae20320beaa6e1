// The SASL side of a connection (server/sasl_session.h): which requests a
// SASL connection may send in its state, the raw-token exchange of clients
// that skip SaslAuthenticate (SaslHandshake v0), and the principal its
// requests carry.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "protocol/generated/api_table.h"
#include "server/connection.h"

namespace samsa::server {

namespace {

constexpr int16_t k_api_versions_key = 18;
constexpr int16_t k_sasl_handshake_key = 17;
constexpr int16_t k_sasl_authenticate_key = 36;

}  // namespace

std::string connection::sasl_refusal(int16_t api_key) {
    if (!_sasl) {
        return {};
    }
    if (_sasl->expired(_last_activity) &&
        !(api_key == k_sasl_handshake_key && _sasl->client_supports_reauth)) {
        // KIP-368: a session past connections.max.reauth.ms serves nothing.
        logging::security().info("event=sasl_session_expired peer={} listener={} principal={}",
                                 _peer, _listener_name, _sasl->principal);
        return "SASL session expired (connections.max.reauth.ms)";
    }
    if (_sasl->st != sasl_session::state::authenticated && api_key != k_api_versions_key &&
        api_key != k_sasl_handshake_key && api_key != k_sasl_authenticate_key) {
        // Kafka's SaslServerAuthenticator: nothing else before authentication.
        return fmt::format("request api_key={} ({}) before SASL authentication", api_key,
                           protocol::api_name(api_key));
    }
    return {};
}

std::string connection::request_principal() const {
    if (_sasl && _sasl->st == sasl_session::state::authenticated) {
        return _sasl->principal;
    }
    return "User:" + (_principal.empty() ? std::string("ANONYMOUS") : _principal);
}

void connection::answer_raw_sasl_token(bytes_view token) {
    auto step = _sasl->exchange->evaluate(token);
    if (!step) {
        // No error response exists for a bare token: the connection closes.
        logging::security().warn(
            "event=sasl_authentication_failed peer={} listener={} mechanism={} "
            "reason=\"{}\"",
            _peer, _listener_name, _sasl->mechanism, step.err().message);
        close("SASL authentication failed");
        return;
    }
    if (step->complete) {
        _sasl->st = sasl_session::state::authenticated;
        _sasl->principal = "User:" + step->user;
        _sasl->exchange.reset();
    }
    auto slot = std::make_shared<response_slot>();
    slot->raw = true;
    slot->ready = true;
    slot->result.body.write_raw(step->challenge);
    _queue.push_back(slot);
    _response_ready.cancel();
}

}  // namespace samsa::server
