#include "server/listener.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/ip/v6_only.hpp>
#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include "common/logging/loggers.h"
#include "server/connection.h"
#include "server/connection_quotas.h"

namespace samsa::server {

listener::listener(std::string name, reactor_pool& reactors, reactor_pool::share share,
                   broker_context& broker, std::shared_ptr<asio::ssl::context> tls,
                   std::shared_ptr<const security::sasl::sasl_listener_config> sasl)
    : _name(std::move(name)),
      _tls(std::move(tls)),
      _sasl(std::move(sasl)),
      _reactors(reactors),
      _share(share),
      _broker(broker),
      _acceptor(reactors.at(0)) {}

status listener::bind(const std::string& host, uint16_t port) {
    std::error_code ec;
    asio::ip::tcp::endpoint ep;
    if (host.empty()) {
        ep = asio::ip::tcp::endpoint(asio::ip::tcp::v6(), port);
    } else {
        asio::ip::tcp::resolver resolver(_reactors.at(0));
        auto results = resolver.resolve(host, std::to_string(port), ec);
        if (ec || results.empty()) {
            return error(error_code::unknown_server_error,
                         fmt::format("listener {}: cannot resolve host '{}': {}", _name, host,
                                     ec ? ec.message() : "no address"));
        }
        ep = results.begin()->endpoint();
    }
    _acceptor.open(ep.protocol(), ec);
    if (!ec && ep.address().is_v6() && host.empty()) {
        // Empty host: every interface, IPv4 and IPv6.
        _acceptor.set_option(asio::ip::v6_only(false), ec);
    }
    if (!ec) {
        _acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
    }
    if (!ec) {
        _acceptor.bind(ep, ec);
    }
    if (!ec) {
        const int backlog = _broker.config ? _broker.config->socket_listen_backlog_size
                                           : asio::socket_base::max_listen_connections;
        _acceptor.listen(backlog, ec);
    }
    if (ec) {
        return error(error_code::unknown_server_error,
                     fmt::format("listener {}: cannot listen on {}:{}: {}", _name, host, port,
                                 ec.message()));
    }
    _bound_port = _acceptor.local_endpoint().port();
    return {};
}

void listener::start() {
    asio::co_spawn(
        _acceptor.get_executor(), [this]() { return accept_loop(); }, asio::detached);
}

void listener::stop() {
    asio::post(_acceptor.get_executor(), [this] {
        std::error_code ec;
        _acceptor.close(ec);
    });
}

void listener::set_tls(std::shared_ptr<asio::ssl::context> tls) {
    std::lock_guard lock(_tls_mutex);
    _tls = std::move(tls);
}

std::shared_ptr<asio::ssl::context> listener::tls() const {
    std::lock_guard lock(_tls_mutex);
    return _tls;
}

bool listener::is_controller_listener() const {
    if (!_broker.config) {
        return false;
    }
    const auto& names = _broker.config->controller_listener_names;
    return std::find(names.begin(), names.end(), _name) != names.end();
}

// socket.send.buffer.bytes / socket.receive.buffer.bytes (-1: the OS default).
void listener::apply_socket_buffers(accepted_socket& socket) const {
    if (!_broker.config) {
        return;
    }
    std::error_code ec;
    if (_broker.config->socket_send_buffer_bytes >= 0) {
        socket.set_option(
            asio::socket_base::send_buffer_size(_broker.config->socket_send_buffer_bytes), ec);
    }
    if (_broker.config->socket_receive_buffer_bytes >= 0) {
        socket.set_option(
            asio::socket_base::receive_buffer_size(_broker.config->socket_receive_buffer_bytes),
            ec);
    }
}

// max.connections / max.connections.per.ip(.overrides): a connection over a
// limit is closed at once, as Kafka's acceptor does. `counted` is the address
// the connection must release when it closes ("" when it was not counted:
// the controller listener is exempt, so client load never locks the quorum out).
bool listener::admit(accepted_socket& socket, std::string& counted) {
    if (!_broker.quotas || is_controller_listener()) {
        return true;
    }
    std::error_code ec;
    auto ep = socket.remote_endpoint(ec);
    std::string address = ec ? std::string("unknown") : ep.address().to_string();
    std::string why;
    if (_broker.quotas->try_acquire(address, why)) {
        counted = std::move(address);
        return true;
    }
    // One line per refusal would let a connection storm flood the log.
    if (_refused++ % 1000 == 0) {
        logging::network().warn(
            "event=connection_refused listener={} peer={} reason=\"{}\" refused={}", _name, address,
            why, _refused);
    }
    socket.close(ec);
    return false;
}

asio::awaitable<void> listener::accept_loop() {
    for (;;) {
        auto& ctx = _reactors.next(_share);
        std::error_code ec;
        auto socket =
            co_await _acceptor.async_accept(ctx, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            if (ec == asio::error::operation_aborted || !_acceptor.is_open()) {
                co_return;
            }
            // EMFILE and friends: log, back off a little (the condition rarely
            // clears at once), and keep accepting.
            logging::network().warn("event=accept_failed listener={} error=\"{}\"", _name,
                                    ec.message());
            asio::steady_timer backoff(_acceptor.get_executor(), std::chrono::milliseconds(100));
            co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            continue;
        }
        apply_socket_buffers(socket);
        std::string counted;
        if (!admit(socket, counted)) {
            continue;
        }
        auto conn =
            std::make_shared<connection>(std::move(socket), _broker, _name, counted, tls(), _sasl);
        // Start on the connection's own reactor.
        asio::post(ctx, [conn] { conn->start(); });
    }
}

}  // namespace samsa::server
