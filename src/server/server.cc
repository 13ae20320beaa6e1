#include "server/server.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

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
    publish_self_registration();
    for (auto& l : _listeners) {
        l->start();
    }
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
    _reactors.stop();
    _listeners.clear();
    _data.shutdown();
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

// Until the metadata log records broker registrations, this node publishes its
// own: its advertised endpoints (port 0 replaced by the bound port, an empty
// host by the host name) and itself as the controller of a one-node quorum.
void server::publish_self_registration() {
    auto image = std::make_shared<metadata::metadata_image>(*_context.metadata.read());
    image->cluster_id = _context.settings.cluster_id;
    image->controller_id = _cfg.node_id;
    metadata::broker_registration reg;
    reg.id = _cfg.node_id;
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
    image->brokers[reg.id] = std::move(reg);
    _context.metadata.update(std::move(image));
}

}  // namespace samsa::server
