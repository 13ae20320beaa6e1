#include "server/server.h"

#include "common/logging/loggers.h"
#include "common/metrics/thread_stats.h"
#include "server/http/admin_api.h"
#include "server/http/admin_writes.h"
#include "server/http/console.h"
#include "server/http/health.h"

#include "server/listener_security.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>

#include <algorithm>

#include "cluster/fetch_waiters.h"
#include "common/clock.h"
#include "metadata/metadata_version.h"

namespace samsa::server {

namespace {

std::string local_host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') {
        return "localhost";
    }
    return buf;
}

// The controller's writer until the quorum's replaces it (before start).
class no_metadata_writer final : public metadata::metadata_log_writer {
  public:
    result<int64_t> append(const std::vector<metadata::metadata_record>&) override {
        return error(error_code::not_controller, "the metadata quorum is not open");
    }
    int64_t end_offset() const override { return 0; }
};

bool is_controller_listener(const config::broker_config& cfg, const std::string& name) {
    return std::find(cfg.controller_listener_names.begin(), cfg.controller_listener_names.end(),
                     name) != cfg.controller_listener_names.end();
}

}  // namespace

server::server(const config::broker_config& cfg, std::string cluster_id)
    : _cfg(cfg), _reactors(size_t(std::max(0, cfg.num_io_threads))), _data(cfg, _reactors) {
    auto& s = _context.settings;
    s.node_id = cfg.node_id;
    s.cluster_id = std::move(cluster_id);
    s.socket_request_max_bytes = cfg.socket_request_max_bytes;
    s.auto_create_topics_enable = cfg.auto_create_topics_enable;
    s.num_partitions = cfg.num_partitions;
    s.default_replication_factor = int16_t(cfg.default_replication_factor);
    _context.handlers = &_handlers;
    _context.config = &cfg;
    _context.authorizer = {cfg.authorizer_enabled,
                           {cfg.super_users.begin(), cfg.super_users.end()},
                           cfg.allow_everyone_if_no_acl_found};
    // The controller and inter-broker listeners are PLAINTEXT, so nodes reach
    // each other as User:ANONYMOUS, which needs CLUSTER_ACTION (Raft, broker
    // heartbeats, replication, transaction markers).
    if (cfg.authorizer_enabled && !_context.authorizer.super_users.contains("User:ANONYMOUS")) {
        logging::server().warn(
            "event=authorizer_anonymous_peers message=\"brokers and controllers reach each other "
            "over PLAINTEXT as User:ANONYMOUS, which needs CLUSTER_ACTION before any ACL can "
            "exist: put it in super.users, or the quorum and replication are refused\"");
    }
}

server::~server() {
    stop();
}

void server::interrupt_start() {
    _start_interrupted = true;
}

status server::start() {
    if (auto st = listener_security::check(_cfg, _tls_contexts, _sasl_configs); !st) {
        return st;
    }
    if (!_cfg.controller_listener_names.empty()) {
        auto security =
            listener_security::client_security_for(_cfg, _cfg.controller_listener_names.front(),
                                                   /*controller=*/true);
        if (!security) {
            return security.err();
        }
        _controller_security = std::move(*security);
    }
    if (_cfg.is_broker()) {
        auto security =
            listener_security::client_security_for(_cfg, _cfg.inter_broker_listener_name,
                                                   /*controller=*/false);
        if (!security) {
            return security.err();
        }
        _inter_broker_security = std::move(*security);
    }
    auto overrides = parse_per_ip_overrides(_cfg.max_connections_per_ip_overrides);
    if (!overrides) {
        return overrides.err();
    }
    _quotas = std::make_unique<connection_quotas>(
        connection_limits{_cfg.max_connections, _cfg.max_connections_per_ip, std::move(*overrides),
                          std::max(1, _cfg.queued_max_requests)});
    _context.quotas = _quotas.get();
    _client_quotas = std::make_unique<quota::client_quota_manager>(
        _cfg.quota_window_num, int64_t(_cfg.quota_window_size_seconds) * 1000);
    _context.client_quotas = _client_quotas.get();
    _mutation_quotas = std::make_unique<quota::controller_mutation_buckets>(
        _cfg.controller_quota_window_num,
        int64_t(_cfg.controller_quota_window_size_seconds) * 1000);
    _context.mutation_quotas = _mutation_quotas.get();
    if (auto st = _data.open(); !st) {
        return st;
    }
    _data.attach(_context);
    // Before the first image is applied: the coordinator must see the
    // elections of __consumer_offsets partitions to load them.
    _groups = std::make_unique<coordinator::group_coordinator>(
        coordinator::group_config::from(_cfg), _data.replicas(), _context.metadata);
    _context.groups = _groups.get();
    if (_context.producer_ids) {
        coordinator::txn::txn_coordinator_settings ts;
        ts.config.num_partitions = _cfg.transaction_state_log_num_partitions;
        ts.config.max_timeout_ms = _cfg.transaction_max_timeout_ms;
        ts.config.abort_check_interval_ms =
            _cfg.transaction_abort_timed_out_transaction_cleanup_interval_ms;
        ts.config.expiration_check_interval_ms =
            _cfg.transaction_remove_expired_transaction_cleanup_interval_ms;
        ts.config.id_expiration_ms = _cfg.transactional_id_expiration_ms;
        ts.config.append_timeout_ms = _cfg.request_timeout_ms;
        ts.inter_broker_listener = _cfg.inter_broker_listener_name;
        ts.inter_broker_security = _inter_broker_security;
        ts.node_id = _cfg.node_id;
        ts.request_timeout_ms = _cfg.request_timeout_ms;
        _transactions = std::make_unique<coordinator::txn::transaction_coordinator>(
            ts, _data.replicas(), _context.metadata, *_context.producer_ids);
        _context.transactions = _transactions.get();
    }
    if (auto* waiters = _context.fetch_waiters) {
        auto wake = [waiters](const storage::topic_partition& tp) { waiters->notify(tp); };
        _groups->set_append_listener(wake);
        if (_transactions) {
            _transactions->set_append_listener(wake);
        }
    }
    for (size_t i = 0; i < _cfg.listeners.size(); ++i) {
        const auto& l = _cfg.listeners[i];
        auto tls = _tls_contexts.find(l.name);
        auto sasl = _sasl_configs.find(l.name);
        auto share = _reactors.share_for(i, size_t(_cfg.num_network_threads));
        auto lst = std::make_unique<listener>(l.name, _reactors, share, _context,
                                              tls == _tls_contexts.end() ? nullptr : tls->second,
                                              sasl == _sasl_configs.end() ? nullptr : sasl->second);
        if (auto st = lst->bind(l.host, l.port); !st) {
            _listeners.clear();
            _controller_listeners.clear();
            return st;
        }
        if (tls != _tls_contexts.end()) {
            if (!_tls_reloader) {
                _tls_reloader = std::make_unique<tls_reloader>(_cfg);
            }
            _tls_reloader->watch(*lst);
        }
        (is_controller_listener(_cfg, l.name) ? _controller_listeners : _listeners)
            .push_back(std::move(lst));
    }
    if (_cfg.is_broker() && _listeners.empty()) {
        return error(error_code::invalid_config, "no broker listener to serve in `listeners`");
    }
    if (auto st = open_quorum(); !st) {
        _listeners.clear();
        _controller_listeners.clear();
        return st;
    }
    // The quorum's traffic flows before this node serves clients: a node
    // cannot catch up with the metadata log, or register, without its peers.
    for (auto& l : _controller_listeners) {
        l->start();
    }
    // From here apply_metadata() posts shard work instead of running it on
    // the caller's thread: the reactors are about to run it.
    _data.replicas().mark_started();
    _reactors.start();
    _data.start();
    _fetchers = std::make_unique<cluster::replication::replica_fetcher_manager>(
        _cfg, _data.replicas(), _inter_broker_security);
    _running = true;
    _controller->start();
    _quorum->start();
    for (auto& l : _controller_listeners) {
        logging::server().info("event=listening listener={} port={} role=controller", l->name(),
                               l->bound_port());
    }
    if (_cfg.is_broker()) {
        _lifecycle = std::make_unique<quorum::broker_lifecycle>(
            _cfg, *_channel, *_quorum, _controller->io().get_executor(), self_registration());
        _lifecycle->set_fence_wanted([this] { return _data.replicas().logs().all_dirs_offline(); });
        _lifecycle->set_leadership_lease(_data.replicas().lease());
        _lifecycle->start();
    }
    // Served while the broker catches up, so that a readiness probe can tell.
    if (auto st = start_http(); !st) {
        stop();
        return st;
    }
    if (_cfg.is_broker()) {
        // The heartbeat that unfences this broker can come before its own
        // metadata has the record that does: a client asking in between would
        // be told of no broker at all (librdkafka then waits for a controller
        // it never learns of). So listeners open once both agree.
        auto visible = [this] {
            auto image = _context.metadata.read();
            auto self = image->brokers.find(node_id{_cfg.node_id});
            return self != image->brokers.end() && !self->second.fenced;
        };
        auto waited = _lifecycle->wait_until_unfenced(
            std::chrono::milliseconds(_cfg.initial_broker_registration_timeout_ms),
            _start_interrupted, visible);
        if (!waited) {
            stop();
            return waited;
        }
        for (auto& l : _listeners) {
            l->start();
        }
        for (auto& l : _listeners) {
            logging::server().info("event=listening listener={} port={}", l->name(),
                                   l->bound_port());
        }
    }
    return {};
}

void server::stop() {
    if (!_running) {
        return;
    }
    _running = false;
    if (_http) {
        // First: its routes read the parts stopped below.
        _http->stop();
        _http.reset();
    }
    if (_lifecycle) {
        // Controlled shutdown: the controller moves leaderships away first.
        _lifecycle->controlled_shutdown(
            std::chrono::milliseconds(std::min(2000, std::max(0, _cfg.broker_session_timeout_ms))));
        _lifecycle->stop();
    }
    for (auto& l : _listeners) {
        l->stop();
    }
    if (_fetchers) {
        _fetchers->stop();
    }
    for (auto& l : _controller_listeners) {
        l->stop();
    }
    if (_quorum) {
        _quorum->resign(std::chrono::milliseconds(200));
    }
    // Before the reactors: a change in flight may be waiting for the shards
    // (the replica manager applies images on them).
    if (_controller) {
        _controller->stop();
    }
    if (_quorum) {
        _quorum->shutdown();
    }
    _reactors.stop();
    _listeners.clear();
    _controller_listeners.clear();
    // Its purgatories and timers before the data plane's partitions go.
    _context.transactions = nullptr;
    _transactions.reset();
    _context.groups = nullptr;
    _groups.reset();
    _data.shutdown();
    logging::server().info("event=stopped node_id={}", _cfg.node_id);
}

http::observed_node server::observed() const {
    http::observed_node node;
    node.broker = &_context;
    node.quorum = _quorum.get();
    node.lifecycle = _lifecycle.get();
    node.reactors = &_reactors;
    node.cleaner = _data.cleaner();
    node.is_broker = _cfg.is_broker();
    node.is_controller = _cfg.is_controller();
    node.admin_writes = _cfg.is_broker() && _cfg.metrics_admin_writes;
    return node;
}

status server::start_http() {
    metrics::set_enabled(!_cfg.metrics_host.empty());
    if (_cfg.metrics_host.empty()) {
        return {};
    }
    const http::observed_node node = observed();
    auto h = std::make_unique<http::http_listener>(_cfg.metrics_host, _cfg.metrics_port);
    h->route("/metrics", [node](const http::http_request&) {
        return http::http_response{
            200, "text/plain; version=0.0.4; charset=utf-8", http::render_metrics(node), {}};
    });
    auto console = [](const http::http_request&) {
        return http::http_response{
            200, "text/html; charset=utf-8", std::string(http::console_html()), {}};
    };
    h->route("/", console);
    h->route("/console", console);
    h->route("/v1/health/live", [](const http::http_request&) { return http::live_check(); });
    h->route("/v1/health/ready",
             [node](const http::http_request&) { return http::ready_check(node); });
    h->route("/v1/cluster", [node](const http::http_request&) { return http::cluster_json(node); });
    h->route("/v1/brokers", [node](const http::http_request&) { return http::brokers_json(node); });
    h->route("/v1/topics", [node](const http::http_request&) { return http::topics_json(node); });
    h->route_prefix("/v1/topics/", [node](const http::http_request& r) {
        return http::topic_route(node, std::string_view(r.path).substr(sizeof("/v1/topics/") - 1),
                                 r.query);
    });
    h->route("/v1/groups", [node](const http::http_request&) { return http::groups_json(node); });
    h->route("/v1/quorum", [node](const http::http_request&) { return http::quorum_json(node); });
    h->route("/v1/configs", [node](const http::http_request&) { return http::configs_json(node); });
    h->route("/v1/loggers", [](const http::http_request&) { return http::loggers_json(); });
    if (_cfg.is_broker()) {
        route_admin_writes(*h);
    }
    if (auto st = h->start(); !st) {
        return st;
    }
    logging::server().info("event=listening listener=metrics host={} port={}", _cfg.metrics_host,
                           _cfg.metrics_port);
    _http = std::move(h);
    return {};
}

void server::route_admin_writes(http::http_listener& h) {
    auto w = std::make_shared<http::admin_writes>();
    w->enabled = _cfg.metrics_admin_writes;
    w->authorizer = _context.authorizer.enabled;
    for (const auto& [name, sasl] : _sasl_configs) {
        w->plain_users.insert(sasl->plain_users.begin(), sasl->plain_users.end());
    }
    w->target = {&_context, &_reactors, _cfg.inter_broker_listener_name, _inter_broker_security};
    h.route("POST", "/v1/topics",
            [w](const http::http_request& r) { return http::create_topic(*w, r); });
    h.route_prefix("DELETE", "/v1/topics/", [w](const http::http_request& r) {
        return http::delete_topic(*w, r,
                                  std::string_view(r.path).substr(sizeof("/v1/topics/") - 1));
    });
    h.route_prefix("POST", "/v1/groups/", [w](const http::http_request& r) {
        return http::reset_group_offsets(
            *w, r, std::string_view(r.path).substr(sizeof("/v1/groups/") - 1));
    });
    h.route_prefix("PUT", "/v1/loggers/", [w](const http::http_request& r) {
        return http::set_logger_level(*w, r,
                                      std::string_view(r.path).substr(sizeof("/v1/loggers/") - 1));
    });
}

uint16_t server::bound_port(const std::string& listener_name) const {
    for (const auto* list : {&_listeners, &_controller_listeners}) {
        for (const auto& l : *list) {
            if (l->name() == listener_name) {
                return l->bound_port();
            }
        }
    }
    return 0;
}

status server::open_quorum() {
    auto base = std::make_shared<metadata::metadata_image>();
    base->cluster_id = _context.settings.cluster_id;
    base->controller_id = node_id{_cfg.node_id};
    // The controller thread exists on every node: it drives this node's
    // replica of the quorum (a voter, or an observer on a broker-only node);
    // the controller itself acts only on a controller node leading the quorum.
    static no_metadata_writer unset;
    _controller = std::make_unique<metadata::controller>(_cfg, unset, _context.metadata, base,
                                                         /*publishes=*/false);
    if (_cfg.is_controller()) {
        // What `samsa storage format` gave a fresh log (--add-scram users).
        auto bootstrap = metadata::read_bootstrap_records(_cfg.metadata_log_dir);
        if (!bootstrap) {
            return bootstrap.err();
        }
        _controller->set_bootstrap_records(std::move(*bootstrap));
    }
    _quorum = std::make_unique<quorum::metadata_quorum>(_cfg, _controller->io(), _context.metadata,
                                                        base, _controller_security);
    if (auto st = _quorum->open(); !st) {
        return st;
    }
    _controller->set_log(*_quorum);
    _context.quorum = _quorum.get();
    _channel = std::make_unique<quorum::controller_frontend>(
        _cfg, _cfg.is_controller() ? _controller.get() : nullptr, *_quorum,
        _controller->io().get_executor(), _controller_security);
    _context.controller = _channel.get();
    _quorum->on_leader_change([this](raft::leader_and_epoch leader, bool) {
        _channel->leader_changed(leader.leader.value());
    });
    // The replica manager creates and deletes local logs as images change.
    _quorum->subscribe([this](std::shared_ptr<const metadata::metadata_image> prev,
                              std::shared_ptr<const metadata::metadata_image> next) {
        _data.replicas().apply_metadata(*prev, *next);
    });
    if (_tls_reloader) {
        _quorum->subscribe([this](std::shared_ptr<const metadata::metadata_image> prev,
                                  std::shared_ptr<const metadata::metadata_image> next) {
            _tls_reloader->on_metadata(*prev, *next);
        });
    }
    // Leaders' ISR changes go to the active controller.
    _data.replicas().set_isr_sink([this](size_t shard, const cluster::isr_proposal& pr) {
        asio::co_spawn(_data.replicas().shard_context(shard), send_isr_change(shard, pr),
                       asio::detached);
    });
    // Partitions this broker follows are fetched from their leaders.
    _quorum->subscribe([this](std::shared_ptr<const metadata::metadata_image>,
                              std::shared_ptr<const metadata::metadata_image> next) {
        if (_fetchers) {
            _fetchers->on_metadata(*next);
        }
    });
    // Dynamic broker configs reach the log cleaner.
    _quorum->subscribe([this](std::shared_ptr<const metadata::metadata_image> prev,
                              std::shared_ptr<const metadata::metadata_image> next) {
        _data.on_metadata(*prev, *next);
    });
    // Deleted topics lose their committed offsets.
    _quorum->subscribe([this](std::shared_ptr<const metadata::metadata_image> prev,
                              std::shared_ptr<const metadata::metadata_image> next) {
        if (_groups) {
            _groups->on_metadata_changed(*prev, *next);
        }
    });
    // The Raft leader is the active controller; its working image starts from
    // everything committed (the quorum delivers all of it before telling).
    // The quorum's image, not the cache's: on a fresh log nothing is published
    // yet, and the cache's empty image has no cluster id, which registrations
    // are checked against.
    if (_cfg.is_controller()) {
        _quorum->on_leader_change([this](raft::leader_and_epoch, bool local) {
            _controller->set_active(local, _quorum->committed_image());
        });
    }
    return {};
}

asio::awaitable<void> server::send_isr_change(size_t shard, cluster::isr_proposal proposal) {
    protocol::alter_partition_request req;
    req.broker_id = node_id{_cfg.node_id};
    req.broker_epoch = _lifecycle ? _lifecycle->broker_epoch() : -1;
    auto& t = req.topics.emplace_back();
    t.topic_name = proposal.tp.topic;
    t.topic_id = proposal.topic_id;
    auto& p = t.partitions.emplace_back();
    p.partition_index = proposal.tp.partition;
    p.leader_epoch = proposal.leader_epoch;
    p.partition_epoch = proposal.partition_epoch;
    p.new_isr = proposal.new_isr;
    auto answer = co_await _channel->alter_partition(req);
    error_code ec = error_code::none;
    if (!answer) {
        ec = answer.err().code;
    } else if (answer->error_code != 0) {
        ec = static_cast<error_code>(answer->error_code);
    } else if (!answer->topics.empty() && !answer->topics[0].partitions.empty()) {
        ec = static_cast<error_code>(answer->topics[0].partitions[0].error_code);
    }
    logging::server().info(
        "event=isr_change_proposed partition={} leader_epoch={} partition_epoch={} "
        "new_isr=[{}] result={}",
        proposal.tp.to_string(), proposal.leader_epoch, proposal.partition_epoch,
        fmt::join(proposal.new_isr, ","), error_name(ec));
    if (ec != error_code::none) {
        // Resumed on the partition's shard: the next check may propose again.
        if (auto* part = _data.replicas().get(shard, proposal.tp)) {
            part->isr_change_failed(ec, wall_clock_ms());
        }
    }
}

protocol::broker_registration_request server::self_registration() const {
    protocol::broker_registration_request reg;
    reg.broker_id = node_id{_cfg.node_id};
    reg.cluster_id = _context.settings.cluster_id;
    reg.incarnation_id = uuid::random();
    reg.rack = _cfg.broker_rack;
    for (const auto& a : _cfg.advertised_listeners) {
        auto& ep = reg.listeners.emplace_back();
        ep.name = a.name;
        ep.host = a.host.empty() ? local_host_name() : a.host;
        ep.port = a.port;
        if (ep.port == 0) {
            ep.port = bound_port(a.name);
        }
        ep.security_protocol = int16_t(a.protocol);
    }
    auto& mv = reg.features.emplace_back();
    mv.name = metadata::metadata_version_feature;
    mv.min_supported_version = metadata::min_supported_metadata_version;
    mv.max_supported_version = metadata::max_supported_metadata_version;
    return reg;
}

}  // namespace samsa::server
