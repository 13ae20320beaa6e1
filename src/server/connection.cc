#include "server/connection.h"

#include <openssl/ssl.h>

#include <algorithm>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/read.hpp>
#include <asio/redirect_error.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <cerrno>
#include <cstring>

#include "common/logging/loggers.h"
#include "protocol/generated/api_table.h"
#include "security/tls_context.h"
#include "security/tls_stream.h"
#include "server/connection_quotas.h"
#include "server/handler_registry.h"
#include "server/handlers/api_versions.h"

namespace samsa::server {

namespace {

constexpr int16_t k_api_versions_key = 18;
constexpr int16_t k_produce_key = 0;

std::string host_of(const asio::ip::tcp::socket& s) {
    std::error_code ec;
    auto ep = s.remote_endpoint(ec);
    return ec ? std::string("unknown") : ep.address().to_string();
}

std::string peer_of(const asio::ip::tcp::socket& s) {
    std::error_code ec;
    auto ep = s.remote_endpoint(ec);
    if (ec) {
        return "unknown";
    }
    return ep.address().to_string() + ":" + std::to_string(ep.port());
}

}  // namespace

connection::connection(asio::ip::tcp::socket socket, broker_context& broker,
                       std::string listener_name, std::string counted_address,
                       std::shared_ptr<asio::ssl::context> tls,
                       std::shared_ptr<const security::sasl::sasl_listener_config> sasl)
    : _socket(std::move(socket)),
      _tls_context(std::move(tls)),
      _produce_order(_socket.get_executor()),
      _broker(broker),
      _listener_name(std::move(listener_name)),
      _peer(peer_of(_socket)),
      _peer_host(host_of(_socket)),
      _response_ready(_socket.get_executor()),
      _queue_drained(_socket.get_executor()),
      _handler_done(_socket.get_executor()),
      _counted_address(std::move(counted_address)),
      _idle(_socket.get_executor()),
      _request_started(_socket.get_executor()) {
    _response_ready.expires_at(asio::steady_timer::time_point::max());
    _queue_drained.expires_at(asio::steady_timer::time_point::max());
    // Never re-armed: several gated handlers wait on it at once, and setting
    // the expiry would cancel the others' waits.
    _handler_done.expires_at(asio::steady_timer::time_point::max());
    if (_broker.config) {
        const auto& names = _broker.config->controller_listener_names;
        _controller_listener = std::find(names.begin(), names.end(), _listener_name) != names.end();
    }
    if (_tls_context) {
        _tls = std::make_unique<security::tls_stream>(_socket, _tls_context);
    }
    if (sasl) {
        _sasl = std::make_unique<sasl_session>();
        _sasl->config = std::move(sasl);
    }
}

connection::~connection() {
    release_quota();
}

void connection::release_quota() {
    if (!_counted_address.empty() && _broker.quotas) {
        _broker.quotas->release(_counted_address);
    }
    _counted_address.clear();
}

void connection::start() {
    std::error_code ec;
    _socket.set_option(asio::ip::tcp::no_delay(true), ec);
    if (_tls) {
        auto self = shared_from_this();
        asio::co_spawn(
            _socket.get_executor(), [self]() { return self->handshake_then_run(); },
            asio::detached);
        return;
    }
    start_loops();
}

// A client that opens a connection and never finishes the handshake is
// closed after this long: it holds no request, so the idle timeout would let
// it sit for connections.max.idle.ms.
static constexpr std::chrono::seconds tls_handshake_timeout{10};

asio::awaitable<void> connection::handshake_then_run() {
    auto self = shared_from_this();
    asio::steady_timer deadline(_socket.get_executor(), tls_handshake_timeout);
    deadline.async_wait([weak = weak_from_this()](const std::error_code& ec) {
        if (auto c = weak.lock(); c && !ec) {
            c->close("TLS handshake not finished within 10 s");
        }
    });
    const std::error_code ec = co_await _tls->handshake();
    deadline.cancel();
    if (_closed) {
        co_return;
    }
    if (ec) {
        // A plaintext client on a TLS port, an untrusted certificate, no
        // common version or cipher: one line, and the connection goes.
        close("TLS handshake failed: " + ec.message());
        co_return;
    }
    auto principal = security::principal_of(_tls->native_handle());
    if (!principal) {
        close("TLS client refused: " + principal.err().message);
        co_return;
    }
    _principal = std::move(*principal);
    logging::network().debug(
        "event=tls_handshake peer={} listener={} principal=\"{}\" version={} cipher={}", _peer,
        _listener_name, _principal, SSL_get_version(_tls->native_handle()),
        SSL_get_cipher_name(_tls->native_handle()));
    start_loops();
}

namespace {

// One co_await per coroutine and no branch around it: GCC 12 miscompiles a
// co_await on an asio operation inside an if/else (the connection spun).
template <typename Stream>
asio::awaitable<std::error_code> read_from(Stream& s, asio::mutable_buffer b) {
    std::error_code ec;
    co_await asio::async_read(s, b, asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
}

template <typename Stream>
asio::awaitable<std::error_code> write_to(Stream& s, std::array<asio::const_buffer, 2> bufs) {
    std::error_code ec;
    co_await asio::async_write(s, bufs, asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
}

}  // namespace

asio::awaitable<std::error_code> connection::read_exact(asio::mutable_buffer b) {
    auto op = _tls ? _tls->read_exact(b) : read_from(_socket, b);
    co_return co_await std::move(op);
}

asio::awaitable<std::error_code> connection::write_all(
    const std::array<asio::const_buffer, 2>& bufs) {
    auto op = _tls ? _tls->write_all(bufs) : write_to(_socket, bufs);
    co_return co_await std::move(op);
}

void connection::start_loops() {
    auto self = shared_from_this();
    asio::co_spawn(
        _socket.get_executor(), [self]() { return self->read_loop(); }, asio::detached);
    asio::co_spawn(
        _socket.get_executor(), [self]() { return self->write_loop(); }, asio::detached);
    const int64_t idle_ms = _broker.config ? _broker.config->connections_max_idle_ms : 0;
    if (idle_ms > 0) {
        asio::co_spawn(
            _socket.get_executor(),
            [self, idle_ms]() { return self->idle_loop(std::chrono::milliseconds(idle_ms)); },
            asio::detached);
    }
}

asio::awaitable<void> connection::idle_loop(std::chrono::milliseconds max_idle) {
    auto self = shared_from_this();
    while (!_closed) {
        _idle.expires_at(_last_activity + max_idle);
        std::error_code ec;
        co_await _idle.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (_closed) {
            co_return;
        }
        // A request in progress (a long poll) is not idleness.
        if (_queue.empty() && std::chrono::steady_clock::now() - _last_activity >= max_idle) {
            close(fmt::format("idle for {} ms (connections.max.idle.ms)", max_idle.count()));
            co_return;
        }
        if (!_queue.empty()) {
            _last_activity = std::chrono::steady_clock::now();
        }
    }
}

asio::awaitable<void> connection::wait_for_request_room() {
    if (!_broker.quotas || _controller_listener) {
        co_return;
    }
    asio::steady_timer timer(_socket.get_executor());
    // Rare (the broker is saturated), and the room frees on other reactors
    // with no cheap way to wake this one: look again each millisecond.
    while (!_closed && !_broker.quotas->may_take_request()) {
        timer.expires_after(std::chrono::milliseconds(1));
        std::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

asio::awaitable<void> connection::wait_out_throttle() {
    asio::steady_timer timer(_socket.get_executor());
    while (!_closed && std::chrono::steady_clock::now() < _throttled_until) {
        timer.expires_at(_throttled_until);
        std::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

asio::awaitable<void> connection::delay(int32_t ms) {
    if (ms <= 0 || _closed) {
        co_return;
    }
    asio::steady_timer timer(_socket.get_executor(), std::chrono::milliseconds(ms));
    std::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

void connection::close(std::string_view reason) {
    if (_closed) {
        return;
    }
    _closed = true;
    if (!reason.empty()) {
        logging::network().info("event=connection_closed peer={} listener={} reason=\"{}\"", _peer,
                                _listener_name, reason);
    }
    // The slot is free as soon as the socket is: the connection object may
    // outlive it while its coroutines unwind.
    release_quota();
    _idle.cancel();
    std::error_code ec;
    _socket.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    _socket.close(ec);
    _response_ready.cancel();
    _queue_drained.cancel();
    _handler_done.cancel();
    _request_started.cancel();
    _produce_order.close();
}

bool connection::parse_header(bytes_view frame, request_header& h, size_t& body_offset) {
    protocol::reader r(frame);
    h.api_key = r.read_int16();
    h.api_version = r.read_int16();
    h.correlation_id = r.read_int32();
    if (!r.ok()) {
        close("request header truncated");
        return false;
    }
    h.header_version = protocol::request_header_version(h.api_key, h.api_version);
    if (h.header_version < 0) {
        close(fmt::format("unknown api key {}", h.api_key));
        return false;
    }
    if (h.header_version >= 1) {
        // client_id is a classic nullable string even in header v2.
        h.client_id = r.read_nullable_string();
    }
    if (h.header_version >= 2) {
        protocol::unknown_tagged_fields ignored;
        r.read_tagged_fields(
            [&](uint32_t tag, uint32_t size) { r.store_unknown_tag(ignored, tag, size); });
    }
    if (!r.ok()) {
        close(fmt::format("request header failed to decode api_key={} api_version={}", h.api_key,
                          h.api_version));
        return false;
    }
    body_offset = frame.size() - r.remaining();
    return true;
}

asio::awaitable<void> connection::read_loop() {
    auto self = shared_from_this();
    const auto max_bytes = _broker.settings.socket_request_max_bytes;
    for (;;) {
        while (!_closed && _queue.size() >= _broker.settings.max_inflight_requests_per_connection) {
            std::error_code ec;
            co_await _queue_drained.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        while (!_closed && _waiting_to_start > 0) {
            std::error_code ec;
            _request_started.expires_at(asio::steady_timer::time_point::max());
            co_await _request_started.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        co_await wait_for_request_room();
        if (_closed) {
            co_return;
        }
        uint8_t size_buf[4];
        std::error_code ec = co_await read_exact(asio::buffer(size_buf));
        if (ec) {
            // EOF between frames is a normal disconnect.
            close(ec == asio::error::eof || _closed ? "" : ec.message());
            co_return;
        }
        int32_t size = int32_t(load_be32(size_buf));
        if (size < 0 || size > max_bytes) {
            close(fmt::format("frame size {} outside [0, socket.request.max.bytes={}]", size,
                              max_bytes));
            co_return;
        }
        // Not value-initialised: the read overwrites every byte, and zeroing a
        // megabyte produce frame first costs as much as the CRC check of it.
        std::shared_ptr<uint8_t[]> frame(new uint8_t[size_t(size)]);
        const bytes_view frame_bytes(frame.get(), size_t(size));
        ec = co_await read_exact(asio::buffer(frame.get(), size_t(size)));
        if (ec) {
            close(_closed ? "" : "connection lost inside a frame: " + ec.message());
            co_return;
        }
        _last_activity = std::chrono::steady_clock::now();
        const auto read_at = _last_activity;
        // A throttled client's next request waits out its throttle, as if
        // Kafka had muted the channel (KIP-219).
        co_await wait_out_throttle();
        if (_closed) {
            co_return;
        }

        if (_sasl && _sasl->raw_tokens && _sasl->st == sasl_session::state::authenticate) {
            answer_raw_sasl_token(frame_bytes);
            continue;
        }
        request_context ctx;
        ctx.controller_listener = _controller_listener;
        size_t body_offset = 0;
        if (!parse_header(frame_bytes, ctx.header, body_offset)) {
            co_return;
        }
        if (auto why = sasl_refusal(ctx.header.api_key); !why.empty()) {
            close(why);
            co_return;
        }
        const api_handler* handler =
            _broker.handlers->find(ctx.header.api_key, _controller_listener);
        bool supported = handler && ctx.header.api_version >= handler->min_version &&
                         ctx.header.api_version <= handler->max_version;
        auto slot = std::make_shared<response_slot>();
        slot->header = ctx.header;
        slot->read_at = read_at;
        if (!supported) {
            if (ctx.header.api_key != k_api_versions_key) {
                close(fmt::format("unsupported request api_key={} ({}) api_version={}",
                                  ctx.header.api_key, protocol::api_name(ctx.header.api_key),
                                  ctx.header.api_version));
                co_return;
            }
            ctx.broker = &_broker;
            slot->result = handlers::api_versions_unsupported(ctx);
            slot->started_at = slot->answered_at = std::chrono::steady_clock::now();
            slot->ready = true;
            _queue.push_back(slot);
            _response_ready.cancel();
            continue;
        }
        ctx.body = frame_bytes.subspan(body_offset);
        ctx.frame = frame;
        ctx.listener_name = _listener_name;
        ctx.controller_listener = _controller_listener;
        ctx.peer = _peer;
        ctx.request_size = uint32_t(size);
        if (_broker.authorizer.enabled || _broker.metadata.has_client_quotas()) {
            // Only the authorizer and quotas ask who is asking: no copies per
            // request otherwise.
            ctx.principal = request_principal();
            ctx.client_host = _peer_host;
        }
        ctx.broker = &_broker;
        ctx.sasl = _sasl.get();
        if (ctx.header.api_key == k_produce_key) {
            ctx.produce_order = &_produce_order;
            ctx.produce_ticket = _produce_order.take();
        }
        _queue.push_back(slot);
        if (_broker.quotas) {
            _broker.quotas->request_started();
        }
        ++_waiting_to_start;
        auto run = [self, slot, handler](request_context c) {
            return [self, slot, c = std::move(c), handler]() mutable {
                return self->run_handler(slot, std::move(c), handler);
            };
        };
        if (_broker.metadata.has_request_quotas()) {
            // request_percentage (KIP-124): time what the request runs.
            ctx.busy = std::make_shared<busy_account>();
            auto account = ctx.busy;
            asio::co_spawn(busy_executor(_socket.get_executor(), std::move(account)),
                           run(std::move(ctx)), asio::detached);
        } else {
            asio::co_spawn(_socket.get_executor(), run(std::move(ctx)), asio::detached);
        }
    }
}

bool connection::must_wait_for_earlier(const response_slot& slot) const {
    if (_controller_listener) {
        return false;  // brokers' and controllers' own traffic stays pipelined
    }
    const bool produce = slot.header.api_key == k_produce_key;
    for (const auto& earlier : _queue) {
        if (earlier.get() == &slot) {
            return false;
        }
        if (!earlier->ready && !(produce && earlier->header.api_key == k_produce_key)) {
            return true;
        }
    }
    return false;
}

asio::awaitable<void> connection::run_handler(std::shared_ptr<response_slot> slot,
                                              request_context ctx, const api_handler* handler) {
    // Kafka handles a connection's requests one at a time, so an answer
    // reflects everything answered before it on that connection; clients
    // rely on it. A Metadata answer computed while an earlier acks=all
    // Produce waited would reach the client after that Produce's answer,
    // naming leaders older than ones it has since heard from other brokers
    // (and librdkafka 2.0 then follows them back). So a request starts once
    // every earlier one is answered; only Produce requests overlap each
    // other, which keeps a producer's pipelined batches flowing.
    // queued.max.requests counts a request from when it was read until its
    // processing starts, as Kafka's request queue holds requests until a
    // handler thread takes them: a long poll parked in the purgatory no longer
    // counts (closed connections' polls would otherwise fill the queue).
    struct queued {
        connection* c;
        void leave() {
            if (c) {
                if (c->_broker.quotas) {
                    c->_broker.quotas->request_done();
                }
                --c->_waiting_to_start;
                c->_request_started.cancel();
                c = nullptr;
            }
        }
        ~queued() { leave(); }
    } in_queue{this};
    while (!_closed && must_wait_for_earlier(*slot)) {
        std::error_code ec;
        co_await _handler_done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    in_queue.leave();
    slot->started_at = std::chrono::steady_clock::now();
    if (_closed) {
        slot->result = handler_result::no_response();
        slot->ready = true;
        co_return;
    }
    try {
        slot->result = co_await handler->handle(ctx);
    } catch (const std::exception& e) {
        // A handler bug: never let it reach the network or other connections.
        logging::network().error(
            "event=handler_exception peer={} api_key={} api_version={} what=\"{}\"", _peer,
            ctx.header.api_key, ctx.header.api_version, e.what());
        slot->result = handler_result::close("internal error while handling request");
    }
    slot->answered_at = std::chrono::steady_clock::now();
    if (ctx.produce_order) {
        // Whatever the handler did, later Produce requests may append now.
        ctx.produce_order->done(ctx.produce_ticket);
    }
    if (slot->result.throttle_ms > 0) {
        _throttled_until =
            std::max(_throttled_until, std::chrono::steady_clock::now() +
                                           std::chrono::milliseconds(slot->result.throttle_ms));
    }
    // An old client is throttled by a late answer (one co_await, outside any
    // branch: GCC 12 miscompiles co_await in one).
    co_await delay(slot->result.client_backs_off ? 0 : slot->result.throttle_ms);
    slot->ready = true;
    _response_ready.cancel();
    _handler_done.cancel();
}

}  // namespace samsa::server
