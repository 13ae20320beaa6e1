#include "server/http/local_call.h"

#include <fmt/format.h>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

#include <exception>
#include <future>
#include <memory>

#include "common/logging/loggers.h"
#include "protocol/generated/api_table.h"
#include "server/handler.h"
#include "server/handler_registry.h"
#include "server/reactor_pool.h"

namespace samsa::server::http {

namespace {

// Shared with the reactor's task, which outlives a call that timed out.
struct local_request {
    bytes body;
    request_context ctx;
    const api_handler* handler = nullptr;
    std::promise<handler_result> done;
};

asio::awaitable<void> run_local(std::shared_ptr<local_request> r) {
    handler_result out;
    try {
        out = co_await r->handler->handle(r->ctx);
    } catch (const std::exception& e) {
        logging::metrics().error("event=admin_call_failed api_key={} what=\"{}\"",
                                 r->ctx.header.api_key, e.what());
        out = handler_result::close("internal error while handling request");
    }
    r->done.set_value(std::move(out));
}

}  // namespace

result<bytes> call_local(const local_target& to, const local_caller& who, int16_t api_key,
                         int16_t api_version, bytes body, std::chrono::milliseconds timeout) {
    const api_handler* handler = to.broker->handlers->find(api_key, listener_kind::client);
    if (!handler || api_version < handler->min_version || api_version > handler->max_version) {
        return error(error_code::unsupported_version,
                     fmt::format("{} v{} is not served", protocol::api_name(api_key), api_version));
    }
    auto r = std::make_shared<local_request>();
    r->body = std::move(body);
    r->handler = handler;
    r->ctx.header.api_key = api_key;
    r->ctx.header.api_version = api_version;
    r->ctx.header.client_id = "samsa-admin-api";
    r->ctx.body = r->body;
    r->ctx.request_size = uint32_t(r->body.size());
    r->ctx.listener_name = to.listener_name;
    r->ctx.peer = "http:" + who.client_host;
    r->ctx.principal = who.principal;
    r->ctx.client_host = who.client_host;
    r->ctx.broker = to.broker;
    auto answer = r->done.get_future();
    asio::co_spawn(to.reactors->at(0), run_local(r), asio::detached);
    if (answer.wait_for(timeout) != std::future_status::ready) {
        return error(error_code::request_timed_out,
                     fmt::format("{} was not answered within {} ms", protocol::api_name(api_key),
                                 timeout.count()));
    }
    handler_result out = answer.get();
    if (out.what != handler_result::kind::respond) {
        return error(error_code::invalid_request, out.close_reason);
    }
    return std::move(out.body.buffer());
}

}  // namespace samsa::server::http
