#pragma once
// The broker process: reactors, listeners, and the services handlers reach.
//
//   server s(cfg, cluster_id);
//   if (auto st = s.start(); !st) { ...st.err().message... }
//   ... wait for a signal ...
//   s.stop();
#include <asio/ssl/context.hpp>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/replication/replica_fetcher.h"
#include "common/config/broker_config.h"
#include "common/result.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/txn/transaction_coordinator.h"
#include "metadata/controller.h"
#include "security/client_security.h"
#include "server/broker_context.h"
#include "server/connection_quotas.h"
#include "server/data_plane.h"
#include "server/handler_registry.h"
#include "server/http/broker_metrics.h"
#include "server/http/http_listener.h"
#include "server/listener.h"
#include "server/listener_security.h"
#include "server/quorum/broker_lifecycle.h"
#include "server/quorum/controller_frontend.h"
#include "server/quorum/metadata_quorum.h"
#include "server/quota/client_quota_manager.h"
#include "server/quota/controller_mutation_quota.h"
#include "server/reactor_pool.h"

namespace samsa::server {

class server {
  public:
    server(const config::broker_config& cfg, std::string cluster_id);
    ~server();

    // Binds every listener and starts the reactors. On error nothing is left running.
    status start();
    // Any thread: makes a start() that is still waiting (for the quorum, for
    // this broker's registration) give up with an error.
    void interrupt_start();
    // Stops accepting, closes connections, joins the reactor threads. Idempotent.
    void stop();

    // The port a listener is bound to (useful with port 0), or 0.
    uint16_t bound_port(const std::string& listener_name) const;
    broker_context& context() { return _context; }
    // What /metrics and the health checks read of this node.
    http::observed_node observed() const;

  private:
    // metrics.listener: /metrics and the health checks (server/http/).
    status start_http();
    // The admin API's writes (server/http/admin_writes.h).
    void route_admin_writes(http::http_listener& h);
    // Opens the metadata quorum's log and builds the controller around it.
    status open_quorum();
    // A leader's ISR change to the active controller (AlterPartition); on the
    // partition's shard.
    asio::awaitable<void> send_isr_change(size_t shard, cluster::isr_proposal proposal);
    // This broker as it registers: its advertised endpoints with port 0
    // replaced by the bound port and an empty host by the host name.
    protocol::broker_registration_request self_registration() const;

    const config::broker_config& _cfg;
    handler_registry _handlers;
    std::unique_ptr<connection_quotas> _quotas;
    std::unique_ptr<quota::client_quota_manager> _client_quotas;
    std::unique_ptr<quota::controller_mutation_buckets> _mutation_quotas;
    broker_context _context;
    reactor_pool _reactors;
    data_plane _data;
    // Consumer groups: after _data (it uses the replica manager), so it goes first.
    std::unique_ptr<coordinator::group_coordinator> _groups;
    std::unique_ptr<coordinator::txn::transaction_coordinator> _transactions;
    // The controller thread's io_context belongs to the controller; the quorum,
    // the channel and the lifecycle run on it, so they go before it.
    std::unique_ptr<metadata::controller> _controller;
    std::unique_ptr<quorum::metadata_quorum> _quorum;
    std::unique_ptr<quorum::controller_frontend> _channel;
    std::unique_ptr<quorum::broker_lifecycle> _lifecycle;
    // Follower replication: fetches the partitions this broker follows.
    std::unique_ptr<cluster::replication::replica_fetcher_manager> _fetchers;
    // The TLS context of each SSL listener, by listener name.
    std::map<std::string, std::shared_ptr<asio::ssl::context>> _tls_contexts;
    // Reloads an SSL listener's keystore and truststore on a dynamic config.
    std::unique_ptr<tls_reloader> _tls_reloader;
    // How this node reaches the controller and inter-broker listeners of the
    // others: TLS client settings when those listeners are SSL, else null.
    std::shared_ptr<const security::client_security> _controller_security;
    std::shared_ptr<const security::client_security> _inter_broker_security;
    // The SASL settings of each SASL listener, by listener name.
    std::map<std::string, std::shared_ptr<const security::sasl::sasl_listener_config>>
        _sasl_configs;
    // metrics.listener: /metrics and the health checks.
    std::unique_ptr<http::http_listener> _http;
    std::vector<std::unique_ptr<listener>> _listeners;             // client listeners
    std::vector<std::unique_ptr<listener>> _controller_listeners;  // controller.listener.names
    bool _running = false;
    std::atomic<bool> _start_interrupted{false};
};

}  // namespace samsa::server
