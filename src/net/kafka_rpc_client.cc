#include "net/kafka_rpc_client.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <asio/co_spawn.hpp>
#include <asio/connect.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/read.hpp>
#include <asio/redirect_error.hpp>
#include <asio/ssl/host_name_verification.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include "common/bytes.h"
#include "common/logging/loggers.h"
#include "protocol/generated/api_table.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/generated/sasl_authenticate_request.h"
#include "protocol/generated/sasl_authenticate_response.h"
#include "protocol/generated/sasl_handshake_request.h"
#include "protocol/generated/sasl_handshake_response.h"

namespace samsa::net {

namespace {

// Larger answers than this are not KRaft's or a controller's: treat as garbage.
constexpr int32_t k_max_response_bytes = 256 * 1024 * 1024;
// SaslHandshake and SaslAuthenticate answers are small.
constexpr int32_t k_max_authentication_bytes = 1024 * 1024;

}  // namespace

std::shared_ptr<kafka_rpc_client> kafka_rpc_client::create(
    asio::any_io_executor ex, std::string host, uint16_t port, std::string client_id,
    std::chrono::milliseconds request_timeout,
    std::shared_ptr<const security::client_security> security) {
    return std::shared_ptr<kafka_rpc_client>(
        new kafka_rpc_client(std::move(ex), std::move(host), port, std::move(client_id),
                             request_timeout, std::move(security)));
}

kafka_rpc_client::kafka_rpc_client(asio::any_io_executor ex, std::string host, uint16_t port,
                                   std::string client_id, std::chrono::milliseconds request_timeout,
                                   std::shared_ptr<const security::client_security> security)
    : _ex(ex),
      _host(std::move(host)),
      _port(port),
      _client_id(std::move(client_id)),
      _request_timeout(request_timeout),
      _security(std::move(security)),
      _socket(ex),
      _wake(ex) {}

void kafka_rpc_client::call(int16_t api_key, int16_t api_version, bytes body, callback done) {
    auto self = shared_from_this();
    asio::post(_ex, [self, api_key, api_version, body = std::move(body),
                     done = std::move(done)]() mutable {
        pending p;
        p.correlation_id = self->_next_correlation++;
        if (self->_next_correlation == INT32_MAX) {
            self->_next_correlation = 1;
        }
        p.api_key = api_key;
        p.api_version = api_version;
        p.frame = self->frame_of(api_key, api_version, p.correlation_id, body);
        p.done = std::move(done);
        self->enqueue(std::move(p));
    });
}

bytes kafka_rpc_client::frame_of(int16_t api_key, int16_t api_version, int32_t correlation_id,
                                 bytes_view body) const {
    protocol::writer w;
    w.write_int32(0);  // the size, filled in below
    protocol::request_header h;
    h.request_api_key = api_key;
    h.request_api_version = api_version;
    h.correlation_id = correlation_id;
    h.client_id = _client_id;
    h.encode(w, protocol::request_header_version(api_key, api_version));
    auto& frame = w.buffer();
    frame.insert(frame.end(), body.begin(), body.end());
    store_be32(frame.data(), uint32_t(frame.size() - 4));
    return std::move(frame);
}

void kafka_rpc_client::close() {
    auto self = shared_from_this();
    asio::post(_ex, [self] { self->fail_all("closed"); });
}

void kafka_rpc_client::enqueue(pending p) {
    _unsent.push_back(std::move(p));
    if (!_running) {
        _running = true;
        const uint64_t generation = ++_generation;
        _socket = asio::ip::tcp::socket(_ex);
        _tls_stream.reset();
        if (_security && _security->tls) {
            _tls_stream.emplace(_ex, *_security->tls->context);
        }
        auto self = shared_from_this();
        asio::co_spawn(
            _ex, [self, generation]() { return self->run(generation); }, asio::detached);
        return;
    }
    _wake.cancel();
}

void kafka_rpc_client::fail_all(const std::string& why) {
    ++_generation;
    _running = false;
    std::error_code ignored;
    _socket.close(ignored);
    if (_tls_stream) {
        _tls_stream->lowest_layer().close(ignored);
    }
    _wake.cancel();
    std::deque<pending> failed = std::move(_in_flight);
    for (auto& p : _unsent) {
        failed.push_back(std::move(p));
    }
    _in_flight.clear();
    _unsent.clear();
    for (auto& p : failed) {
        p.done(error(error_code::network_exception, fmt::format("{}:{}: {}", _host, _port, why)));
    }
}

asio::awaitable<void> kafka_rpc_client::run(uint64_t generation) {
    auto self = shared_from_this();
    std::error_code ec;
    asio::ip::tcp::resolver resolver(_ex);
    auto endpoints = co_await resolver.async_resolve(_host, std::to_string(_port),
                                                     asio::redirect_error(asio::use_awaitable, ec));
    asio::ip::tcp::socket& socket = _tls_stream ? _tls_stream->next_layer() : _socket;
    if (!ec && generation == _generation) {
        co_await asio::async_connect(socket, endpoints,
                                     asio::redirect_error(asio::use_awaitable, ec));
    }
    if (generation != _generation) {
        co_return;
    }
    if (ec) {
        fail_all("connect: " + ec.message());
        co_return;
    }
    socket.set_option(asio::ip::tcp::no_delay(true), ec);
    if (_tls_stream) {
        ec = co_await handshake();
        if (generation != _generation) {
            co_return;
        }
        if (ec) {
            // Retried on the callers' timers: said once, until one succeeds.
            if (!_handshake_failure_logged) {
                _handshake_failure_logged = true;
                logging::network().warn(
                    "event=tls_handshake_failed peer={}:{} client_id={} error=\"{}\"", _host, _port,
                    _client_id, ec.message());
            }
            fail_all("TLS handshake: " + ec.message());
            co_return;
        }
        _handshake_failure_logged = false;
    }
    if (_security && _security->sasl) {
        auto authenticated = co_await authenticate();
        if (generation != _generation) {
            co_return;
        }
        if (!authenticated) {
            if (!_authentication_failure_logged) {
                _authentication_failure_logged = true;
                logging::network().warn(
                    "event=sasl_authentication_failed peer={}:{} client_id={} mechanism={} "
                    "error=\"{}\"",
                    _host, _port, _client_id, _security->sasl->mechanism,
                    authenticated.err().message);
            }
            fail_all("SASL authentication: " + authenticated.err().message);
            co_return;
        }
        _authentication_failure_logged = false;
    }
    asio::co_spawn(
        _ex, [self, generation]() { return self->read_loop(generation); }, asio::detached);
    for (;;) {
        while (!_unsent.empty()) {
            pending p = std::move(_unsent.front());
            _unsent.pop_front();
            p.sent = std::chrono::steady_clock::now();
            auto frame = std::make_shared<bytes>(std::move(p.frame));
            _in_flight.push_back(std::move(p));
            auto write = on_stream([&](auto& stream) {
                return asio::async_write(stream, asio::buffer(*frame),
                                         asio::redirect_error(asio::use_awaitable, ec));
            });
            co_await std::move(write);
            if (generation != _generation) {
                co_return;
            }
            if (ec) {
                fail_all("write: " + ec.message());
                co_return;
            }
        }
        auto deadline = _in_flight.empty() ? asio::steady_timer::time_point::max()
                                           : _in_flight.front().sent + _request_timeout;
        if (deadline <= std::chrono::steady_clock::now()) {
            fail_all("no answer within the request timeout");
            co_return;
        }
        _wake.expires_at(deadline);
        co_await _wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (generation != _generation) {
            co_return;
        }
    }
}

asio::awaitable<void> kafka_rpc_client::read_loop(uint64_t generation) {
    auto self = shared_from_this();
    for (;;) {
        uint8_t size_buf[4];
        std::error_code ec;
        auto read_size = on_stream([&](auto& stream) {
            return asio::async_read(stream, asio::buffer(size_buf),
                                    asio::redirect_error(asio::use_awaitable, ec));
        });
        co_await std::move(read_size);
        if (generation != _generation) {
            co_return;
        }
        if (ec) {
            fail_all("read: " + ec.message());
            co_return;
        }
        const auto size = int32_t(load_be32(size_buf));
        if (size < 4 || size > k_max_response_bytes) {
            fail_all(fmt::format("bad response size {}", size));
            co_return;
        }
        std::shared_ptr<uint8_t[]> frame(new uint8_t[size_t(size)]);
        const bytes_view frame_bytes(frame.get(), size_t(size));
        auto read_frame = on_stream([&](auto& stream) {
            return asio::async_read(stream, asio::buffer(frame.get(), size_t(size)),
                                    asio::redirect_error(asio::use_awaitable, ec));
        });
        co_await std::move(read_frame);
        if (generation != _generation) {
            co_return;
        }
        if (ec) {
            fail_all("read: " + ec.message());
            co_return;
        }
        if (_in_flight.empty()) {
            fail_all("an answer to no request");
            co_return;
        }
        pending p = std::move(_in_flight.front());
        _in_flight.pop_front();
        protocol::reader r(frame_bytes);
        protocol::response_header h;
        h.decode(r, protocol::response_header_version(p.api_key, p.api_version));
        if (!r.ok() || h.correlation_id != p.correlation_id) {
            _in_flight.push_front(std::move(p));
            fail_all(fmt::format("answer with correlation id {} out of order", h.correlation_id));
            co_return;
        }
        const bytes_view body = frame_bytes.subspan(frame_bytes.size() - r.remaining());
        p.done(rpc_answer{std::move(frame), body});
        _wake.cancel();  // the writer re-arms its timeout for the next in flight
    }
}

asio::awaitable<result<bytes>> kafka_rpc_client::exchange(int16_t api_key, int16_t api_version,
                                                          bytes body) {
    const int32_t correlation = _next_correlation++;
    if (_next_correlation == INT32_MAX) {
        _next_correlation = 1;
    }
    const bytes frame = frame_of(api_key, api_version, correlation, body);
    std::error_code ec;
    auto write = on_stream([&](auto& stream) {
        return asio::async_write(stream, asio::buffer(frame),
                                 asio::redirect_error(asio::use_awaitable, ec));
    });
    co_await std::move(write);
    uint8_t size_buf[4] = {};
    if (!ec) {
        auto read_size = on_stream([&](auto& stream) {
            return asio::async_read(stream, asio::buffer(size_buf),
                                    asio::redirect_error(asio::use_awaitable, ec));
        });
        co_await std::move(read_size);
    }
    const auto size = int32_t(load_be32(size_buf));
    if (!ec && (size < 4 || size > k_max_authentication_bytes)) {
        co_return error(error_code::network_exception, fmt::format("bad response size {}", size));
    }
    bytes answer(ec ? 0 : size_t(size));
    if (!ec) {
        auto read_body = on_stream([&](auto& stream) {
            return asio::async_read(stream, asio::buffer(answer),
                                    asio::redirect_error(asio::use_awaitable, ec));
        });
        co_await std::move(read_body);
    }
    if (ec) {
        co_return error(error_code::network_exception, ec.message());
    }
    protocol::reader r(answer);
    protocol::response_header h;
    h.decode(r, protocol::response_header_version(api_key, api_version));
    if (!r.ok() || h.correlation_id != correlation) {
        co_return error(error_code::network_exception, "an answer to another request");
    }
    co_return bytes(answer.end() - std::ptrdiff_t(r.remaining()), answer.end());
}

// SaslHandshake v1, then SaslAuthenticate v2 until the mechanism completes
// (KIP-152), before any request of the callers.
asio::awaitable<status> kafka_rpc_client::authenticate() {
    const auto& credentials = *_security->sasl;
    auto client = security::sasl::make_sasl_client(credentials);
    if (!client) {
        co_return client.err();
    }
    protocol::sasl_handshake_request hello;
    hello.mechanism = credentials.mechanism;
    auto mechanisms = co_await typed_exchange<protocol::sasl_handshake_response>(hello, 1);
    if (!mechanisms) {
        co_return mechanisms.err();
    }
    if (mechanisms->error_code != 0) {
        co_return error(static_cast<error_code>(mechanisms->error_code),
                        fmt::format("the listener does not offer {} (it offers {})",
                                    credentials.mechanism, fmt::join(mechanisms->mechanisms, ",")));
    }
    bytes from_server;
    for (int round = 0; round < 8; ++round) {
        auto token = (*client)->next(from_server);
        if (!token) {
            co_return token.err();
        }
        if ((*client)->complete()) {
            co_return status{};
        }
        protocol::sasl_authenticate_request step;
        step.auth_bytes = std::move(*token);
        auto decoded = co_await typed_exchange<protocol::sasl_authenticate_response>(step, 2);
        if (!decoded) {
            co_return decoded.err();
        }
        if (decoded->error_code != 0) {
            co_return error(static_cast<error_code>(decoded->error_code),
                            decoded->error_message.value_or("authentication failed"));
        }
        from_server = std::move(decoded->auth_bytes);
    }
    co_return error(error_code::illegal_sasl_state, "the SASL exchange did not end");
}

asio::awaitable<std::error_code> kafka_rpc_client::handshake() {
    // The server name (SNI) and, with ssl.endpoint.identification.algorithm=https,
    // the name the certificate must carry (a DNS name or an IP address).
    std::error_code not_an_address;
    (void)asio::ip::make_address(_host, not_an_address);
    if (not_an_address) {  // SNI names hosts, never addresses (RFC 6066)
        SSL_set_tlsext_host_name(_tls_stream->native_handle(), _host.c_str());
    }
    if (_security->tls->verify_hostname) {
        _tls_stream->set_verify_callback(asio::ssl::host_name_verification(_host));
    }
    std::error_code ec;
    co_await _tls_stream->async_handshake(asio::ssl::stream_base::client,
                                          asio::redirect_error(asio::use_awaitable, ec));
    co_return ec;
}

}  // namespace samsa::net
