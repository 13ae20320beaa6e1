#include "server/handlers/sasl_authenticate.h"

#include <spdlog/spdlog.h>

#include "common/error.h"
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
    if (!s || s->st != sasl_session::state::authenticate || !s->exchange) {
        resp.error_code = to_wire(error_code::illegal_sasl_state);
        resp.error_message = "SaslAuthenticate before a SaslHandshake chose a mechanism";
        if (s) {
            s->close_after_response = true;
        }
        co_return resp;
    }
    auto step = s->exchange->evaluate(req.auth_bytes);
    if (!step) {
        resp.error_code = to_wire(step.err().code);
        resp.error_message = step.err().message;
        s->close_after_response = true;
        s->exchange.reset();
        spdlog::warn(
            "event=sasl_authentication_failed peer={} listener={} mechanism={} "
            "reason=\"{}\"",
            ctx.peer, ctx.listener_name, s->mechanism, step.err().message);
        co_return resp;
    }
    resp.auth_bytes = std::move(step->challenge);
    if (step->complete) {
        s->st = sasl_session::state::authenticated;
        s->principal = "User:" + step->user;
        s->exchange.reset();
        spdlog::debug("event=sasl_authenticated peer={} listener={} mechanism={} principal={}",
                      ctx.peer, ctx.listener_name, s->mechanism, s->principal);
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
