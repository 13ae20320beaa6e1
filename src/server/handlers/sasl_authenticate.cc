#include "server/handlers/sasl_authenticate.h"

#include <spdlog/spdlog.h>

#include "common/error.h"
#include "common/logging/loggers.h"
#include "protocol/generated/sasl_authenticate_request.h"
#include "protocol/generated/sasl_authenticate_response.h"
#include "server/sasl_session.h"

namespace samsa::server::handlers {

namespace {

using protocol::sasl_authenticate_request;
using protocol::sasl_authenticate_response;

asio::awaitable<sasl_authenticate_response> handle(request_context& ctx,
                                                   sasl_authenticate_request& req) {
    sasl_authenticate_response resp;
    sasl_session* s = ctx.sasl;
    auto fail = [&](error e) {
        resp.error_code = to_wire(e.code);
        resp.error_message = e.message;
        s->close_after_response = true;
        s->exchange.reset();
        logging::security().warn(
            "event=sasl_authentication_failed peer={} listener={} mechanism={} "
            "reason=\"{}\"",
            ctx.peer, ctx.listener_name, s->mechanism, e.message);
        return resp;
    };
    if (!s || (s->st == sasl_session::state::authenticated && !s->exchange)) {
        // Not a SASL listener, or one whose client already authenticated and
        // began no re-authentication: Kafka's KafkaApis answer, and the
        // connection stays.
        resp.error_code = to_wire(error_code::illegal_sasl_state);
        resp.error_message = "SaslAuthenticate request received after successful authentication";
        co_return resp;
    }
    if (!s->bad_reauth_mechanism.empty()) {
        co_return fail(error(error_code::sasl_authentication_failed, s->bad_reauth_mechanism));
    }
    if (s->st != sasl_session::state::authenticate || !s->exchange) {
        resp.error_code = to_wire(error_code::illegal_sasl_state);
        resp.error_message = "SaslAuthenticate before a SaslHandshake chose a mechanism";
        s->close_after_response = true;
        co_return resp;
    }
    if (ctx.header.api_version >= 1) {
        s->client_supports_reauth = true;
    }
    auto step = s->exchange->evaluate(req.auth_bytes);
    if (!step) {
        co_return fail(step.err());
    }
    resp.auth_bytes = std::move(step->challenge);
    if (step->complete) {
        std::string principal = "User:" + step->user;
        if (s->reauthenticating && principal != s->previous_principal) {
            // Kafka prints a principal as <type>.<name> here.
            auto dotted = [](std::string p) { return p.replace(p.find(':'), 1, "."); };
            co_return fail(error(error_code::sasl_authentication_failed,
                                 "Cannot change principals during re-authentication from " +
                                     dotted(s->previous_principal) + ": " + dotted(principal)));
        }
        const int64_t lifetime_ms = s->config->max_reauth_ms_of(s->mechanism);
        resp.session_lifetime_ms = lifetime_ms;
        s->expires.reset();
        if (lifetime_ms > 0) {
            s->expires = std::chrono::steady_clock::now() + std::chrono::milliseconds(lifetime_ms);
        }
        logging::security().debug(
            "event=sasl_{} peer={} listener={} mechanism={} principal={} "
            "session_lifetime_ms={}",
            s->reauthenticating ? "reauthenticated" : "authenticated", ctx.peer, ctx.listener_name,
            s->mechanism, principal, lifetime_ms);
        s->st = sasl_session::state::authenticated;
        s->principal = std::move(principal);
        s->reauthenticating = false;
        s->exchange.reset();
    }
    co_return resp;
}

}  // namespace

api_handler sasl_authenticate_handler() {
    return {sasl_authenticate_request::api_key, sasl_authenticate_request::min_version,
            sasl_authenticate_request::max_version,
            &typed_handler<sasl_authenticate_request, sasl_authenticate_response, &handle>};
}

}  // namespace samsa::server::handlers
