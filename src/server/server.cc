#include "server/server.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "common/clock.h"

namespace samsa::server {

namespace {

std::string local_host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') {
        return "localhost";
    }
    return buf;
}

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
}

server::~server() {
    stop();
}

status server::start() {
    if (auto st = _data.open(); !st) {
        return st;
    }
    _data.attach(_context);
    // Before the controller applies the first image: the coordinator must
    // see the elections of __consumer_offsets partitions to load them.
    _groups = std::make_unique<coordinator::group_coordinator>(
        coordinator::group_config::from(_cfg), _data.replicas(), _context.metadata);
    _context.groups = _groups.get();
    for (const auto& l : _cfg.listeners) {
        if (is_controller_listener(_cfg, l.name)) {
            // The controller listener carries the Raft quorum's traffic, which
            // this build does not serve yet; a one-node cluster is its own quorum.
            continue;
        }
        auto lst = std::make_unique<listener>(l.name, _reactors, _context);
        if (auto st = lst->bind(l.host, l.port); !st) {
            _listeners.clear();
            return st;
        }
        _listeners.push_back(std::move(lst));
    }
    if (_listeners.empty()) {
        return error(error_code::invalid_config, "no broker listener to serve in `listeners`");
    }
    if (auto st = start_controller(); !st) {
        _listeners.clear();
        return st;
    }
    for (auto& l : _listeners) {
        l->start();
    }
    // From here apply_metadata() posts shard work instead of running it on
    // the caller's thread: the reactors are about to run it.
    _data.replicas().mark_started();
    _reactors.start();
    _data.start();
    _running = true;
    for (auto& l : _listeners) {
        spdlog::info("event=listening listener={} port={}", l->name(), l->bound_port());
    }
    return {};
}

void server::stop() {
    if (!_running) {
        return;
    }
    _running = false;
    for (auto& l : _listeners) {
        l->stop();
    }
    // Before the reactors: a change in flight may be waiting for the shards
    // (the replica manager applies images on them).
    if (_controller) {
        _controller->stop();
    }
    _reactors.stop();
    _listeners.clear();
    // Its purgatories and timers before the data plane's partitions go.
    _context.groups = nullptr;
    _groups.reset();
    _data.shutdown();
    if (_metadata_log) {
        if (auto st = _metadata_log->close(); !st) {
            spdlog::error("event=metadata_log_close_failed error=\"{}\"", st.err().message);
        }
    }
    spdlog::info("event=stopped node_id={}", _cfg.node_id);
}

uint16_t server::bound_port(const std::string& listener_name) const {
    for (const auto& l : _listeners) {
        if (l->name() == listener_name) {
            return l->bound_port();
        }
    }
    return 0;
}

status server::start_controller() {
    const std::string dir =
        _cfg.metadata_log_dir.empty() ? _cfg.log_dirs.front() : _cfg.metadata_log_dir;
    auto opened = metadata::metadata_log::open(dir, wall_clock_ms());
    if (!opened) {
        return error(opened.err().code,
                     "cannot open the metadata log in " + dir + ": " + opened.err().message);
    }
    _metadata_log = std::move(*opened);
    auto base = std::make_shared<metadata::metadata_image>();
    base->cluster_id = _context.settings.cluster_id;
    base->controller_id = _cfg.node_id;
    auto image = metadata::replay_image(*_metadata_log, base);
    if (!image) {
        return error(image.err().code,
                     "cannot replay the metadata log in " + dir + ": " + image.err().message);
    }
    spdlog::info("event=metadata_replayed dir={} offset={} topics={} brokers={}", dir,
                 (*image)->offset, (*image)->topics_by_name.size(), (*image)->brokers.size());
    _controller =
        std::make_unique<metadata::controller>(_cfg, *_metadata_log, _context.metadata, *image);
    _context.controller = _controller.get();
    // The replica manager creates and deletes local logs as images change.
    _controller->subscribe([this](std::shared_ptr<const metadata::metadata_image> prev,
                                  std::shared_ptr<const metadata::metadata_image> next) {
        _data.replicas().apply_metadata(*prev, *next);
    });
    // Deleted topics lose their committed offsets.
    _controller->subscribe([this](std::shared_ptr<const metadata::metadata_image> prev,
                                  std::shared_ptr<const metadata::metadata_image> next) {
        if (_groups) {
            _groups->on_metadata_changed(*prev, *next);
        }
    });
    _controller->start();
    auto epoch = _controller->register_broker_blocking(self_registration());
    if (!epoch) {
        _controller->stop();
        return error(epoch.err().code, "cannot register this broker: " + epoch.err().message);
    }
    return {};
}

metadata::broker_registration server::self_registration() const {
    metadata::broker_registration reg;
    reg.id = _cfg.node_id;
    reg.incarnation_id = uuid::random();
    reg.rack = _cfg.broker_rack;
    for (const auto& a : _cfg.advertised_listeners) {
        metadata::broker_endpoint ep;
        ep.listener_name = a.name;
        ep.host = a.host.empty() ? local_host_name() : a.host;
        ep.port = a.port;
        if (ep.port == 0) {
            ep.port = bound_port(a.name);
        }
        ep.security_protocol = int16_t(a.protocol);
        reg.endpoints.push_back(std::move(ep));
    }
    return reg;
}

}  // namespace samsa::server
