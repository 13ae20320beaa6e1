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
#include "coordinator/group/group_coordinator.h"
#include "metadata/controller.h"
#include "metadata/metadata_log.h"
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
    // Opens and replays the metadata log, starts the controller.
    status start_controller();
    // This broker as it registers: its advertised endpoints with port 0
    // replaced by the bound port and an empty host by the host name.
    metadata::broker_registration self_registration() const;

    const config::broker_config& _cfg;
    handler_registry _handlers;
    broker_context _context;
    reactor_pool _reactors;
    data_plane _data;
    // Consumer groups: after _data (it uses the replica manager), so it goes first.
    std::unique_ptr<coordinator::group_coordinator> _groups;
    std::unique_ptr<metadata::metadata_log> _metadata_log;
    std::unique_ptr<metadata::controller> _controller;
    std::vector<std::unique_ptr<listener>> _listeners;
    bool _running = false;
};

}  // namespace samsa::server
