#pragma once
// The handler interface (docs/architecture.md, "Requests"). Each Kafka API has one handler file in
// server/handlers/ that states the versions it serves once, in its
// `api_handler` entry; ApiVersions is derived from the registry of entries.
#include <algorithm>
#include <asio/awaitable.hpp>
#include <cstdint>
#include <string_view>

#include "common/metrics/thread_stats.h"
#include "protocol/reader.h"
#include "protocol/writer.h"
#include "server/quota/client_throttle.h"
#include "server/quota/request_quota.h"
#include "server/request_context.h"

namespace samsa::server {

// What a handler produced for one request.
struct handler_result {
    enum class kind : uint8_t {
        respond,      // send `body` with the response header
        no_response,  // Produce with acks=0
        close,        // malformed request: close the connection (Kafka does)
    };
    kind what = kind::respond;
    protocol::writer body;
    std::string close_reason;
    // A client quota's throttle (KIP-219): the connection reads nothing more
    // for this long; and a client too old to back off by itself (its
    // response version predates KIP-219) gets the response that much later.
    int32_t throttle_ms = 0;
    bool client_backs_off = true;

    static handler_result no_response() { return {kind::no_response, {}, {}, 0, true}; }
    static handler_result close(std::string reason) {
        return {kind::close, {}, std::move(reason), 0, true};
    }
};

using handler_fn = asio::awaitable<handler_result> (*)(request_context&);

struct api_handler {
    int16_t key;
    int16_t min_version;
    int16_t max_version;
    handler_fn handle;
};

// Counts every error code a response carries in `version` (Kafka's
// RequestMetrics ErrorsPerSec, from the response's errorCounts).
template <typename Response>
void count_response_errors(const Response& resp, int16_t version) {
    if (!metrics::enabled()) {
        return;
    }
    auto& r = metrics::local().request(Response::api_key);
    resp.for_each_error_code(
        version, [&r](int16_t code) { r.errors[metrics::error_code_slot(code)].add(1); });
}

// The throttle a response carries (KIP-219): the larger of what the handler
// put in it (a byte-rate or controller mutation quota, or the controller's
// answer) and the request_percentage quota's; the connection stops reading
// for that long, and an old client gets the answer that much later.
template <typename Response>
void apply_throttle(const request_context& ctx, Response& resp, handler_result& out) {
    int32_t throttle = quota::record_request_time(ctx);
    if constexpr (requires { resp.throttle_time_ms; }) {
        throttle = std::max(throttle, resp.throttle_time_ms);
        resp.throttle_time_ms = throttle;
    }
    out.throttle_ms = throttle;
    out.client_backs_off = quota::client_backs_off(Response::api_key, ctx.header.api_version);
}

// Decodes the request body as Request, runs `fn`, and encodes its response in
// the request's version. A body that fails to decode (or has trailing bytes)
// closes the connection, as Kafka does with an InvalidRequestException.
template <typename Request, typename Response,
          asio::awaitable<Response> (*Fn)(request_context&, Request&)>
asio::awaitable<handler_result> typed_handler(request_context& ctx) {
    Request req;
    protocol::reader r(ctx.body);
    req.decode(r, ctx.header.api_version);
    if (!r.ok()) {
        co_return handler_result::close("request body failed to decode");
    }
    Response resp = co_await Fn(ctx, req);
    count_response_errors(resp, ctx.header.api_version);
    handler_result out;
    apply_throttle(ctx, resp, out);
    resp.encode(out.body, ctx.header.api_version);
    co_return out;
}

}  // namespace samsa::server
