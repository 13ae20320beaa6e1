#pragma once
// A listener (`NAME://host:port`): accepts connections and hands each to the
// next reactor of its share (num.network.threads), round-robin. The accept
// loop runs on the first reactor.
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl/context.hpp>
#include <memory>
#include <mutex>
#include <string>

#include "common/result.h"
#include "security/sasl/sasl_listener.h"
#include "server/broker_context.h"
#include "server/reactor_pool.h"

namespace samsa::server {

class listener {
  public:
    // `tls`: the listener's TLS context (SSL, SASL_SSL); null for plaintext.
    // `sasl`: its SASL settings (SASL_PLAINTEXT, SASL_SSL).
    // `share`: the reactors its connections go to (num.network.threads).
    listener(std::string name, reactor_pool& reactors, reactor_pool::share share,
             broker_context& broker, std::shared_ptr<asio::ssl::context> tls = nullptr,
             std::shared_ptr<const security::sasl::sasl_listener_config> sasl = nullptr);

    // Binds and listens (port 0 = any free port). Errors are values.
    status bind(const std::string& host, uint16_t port);
    uint16_t bound_port() const { return _bound_port; }
    const std::string& name() const { return _name; }
    // Starts the accept loop; returns at once.
    void start();
    // Stops accepting; thread-safe.
    void stop();
    // A new TLS context for the connections accepted from now on (a reloaded
    // keystore or truststore); open connections keep theirs. Thread-safe.
    void set_tls(std::shared_ptr<asio::ssl::context> tls);

  private:
    asio::awaitable<void> accept_loop();
    // What async_accept(io_context&) yields.
    using accepted_socket =
        asio::basic_stream_socket<asio::ip::tcp, asio::io_context::executor_type>;
    bool is_controller_listener() const;
    std::shared_ptr<asio::ssl::context> tls() const;
    void apply_socket_buffers(accepted_socket& socket) const;
    bool admit(accepted_socket& socket, std::string& counted);

    std::string _name;
    mutable std::mutex _tls_mutex;
    std::shared_ptr<asio::ssl::context> _tls;  // under _tls_mutex
    std::shared_ptr<const security::sasl::sasl_listener_config> _sasl;
    reactor_pool& _reactors;
    reactor_pool::share _share;  // accept loop only
    broker_context& _broker;
    asio::ip::tcp::acceptor _acceptor;
    uint16_t _bound_port = 0;
    uint64_t _refused = 0;  // accept loop only
};

}  // namespace samsa::server
