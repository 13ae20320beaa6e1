#pragma once
// A listener (`NAME://host:port`): accepts connections and hands each to the
// next reactor, round-robin. The accept loop runs on the first reactor.
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <memory>
#include <string>

#include "common/result.h"
#include "server/broker_context.h"
#include "server/reactor_pool.h"

namespace samsa::server {

class listener {
  public:
    listener(std::string name, reactor_pool& reactors, broker_context& broker);

    // Binds and listens (port 0 = any free port). Errors are values.
    status bind(const std::string& host, uint16_t port);
    uint16_t bound_port() const { return _bound_port; }
    const std::string& name() const { return _name; }
    // Starts the accept loop; returns at once.
    void start();
    // Stops accepting; thread-safe.
    void stop();

  private:
    asio::awaitable<void> accept_loop();

    std::string _name;
    reactor_pool& _reactors;
    broker_context& _broker;
    asio::ip::tcp::acceptor _acceptor;
    uint16_t _bound_port = 0;
};

}  // namespace samsa::server
