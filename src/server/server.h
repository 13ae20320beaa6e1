#pragma once
// The broker process: reactors, listeners, and the services handlers reach.
//
//   server s(cfg, cluster_id);
//   if (auto st = s.start(); !st) { ...st.err().message... }
//   ... wait for a signal ...
//   s.stop();
#include <memory>
#include <string>
#include <vector>

#include "common/config/broker_config.h"
#include "common/result.h"
#include "server/broker_context.h"
#include "server/data_plane.h"
#include "server/handler_registry.h"
#include "server/listener.h"
#include "server/reactor_pool.h"

namespace samsa::server {

class server {
  public:
    server(const config::broker_config& cfg, std::string cluster_id);
    ~server();

    // Binds every listener and starts the reactors. On error nothing is left running.
    status start();
    // Stops accepting, closes connections, joins the reactor threads. Idempotent.
    void stop();

    // The port a listener is bound to (useful with port 0), or 0.
    uint16_t bound_port(const std::string& listener_name) const;
    broker_context& context() { return _context; }

  private:
    void publish_self_registration();

    const config::broker_config& _cfg;
    handler_registry _handlers;
    broker_context _context;
    reactor_pool _reactors;
    data_plane _data;
    std::vector<std::unique_ptr<listener>> _listeners;
    bool _running = false;
};

}  // namespace samsa::server
