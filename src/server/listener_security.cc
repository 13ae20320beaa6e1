#include "server/listener_security.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "common/logging/loggers.h"
#include "metadata/config_view.h"
#include "server/listener.h"

namespace samsa::server {

namespace {

// What says a key or trust file was rewritten: its size and modification time.
std::string file_stamp(const std::optional<std::string>& path) {
    if (!path) {
        return "-";
    }
    std::error_code ec;
    const auto size = std::filesystem::file_size(*path, ec);
    const auto time = std::filesystem::last_write_time(*path, ec);
    if (ec) {
        return *path + ":missing";
    }
    return fmt::format("{}:{}:{}", *path, size, time.time_since_epoch().count());
}

std::string files_of(const config::tls_config& c) {
    return file_stamp(c.keystore_location) + "|" + file_stamp(c.truststore_location);
}

}  // namespace

namespace listener_security {

// An SSL or SASL_SSL listener gets its TLS context here and a SASL listener
// its mechanisms and users, so a bad key, certificate or JAAS config is
// reported at start, naming the key.
status check(
    const config::broker_config& cfg,
    std::map<std::string, std::shared_ptr<asio::ssl::context>>& contexts,
    std::map<std::string, std::shared_ptr<const security::sasl::sasl_listener_config>>& sasl) {
    using config::security_protocol;
    for (const auto& l : cfg.listeners) {
        if (l.protocol == security_protocol::plaintext) {
            continue;
        }
        if (l.protocol == security_protocol::ssl || l.protocol == security_protocol::sasl_ssl) {
            auto ctx = security::make_server_context(config::tls_config_for(cfg.values, l.name));
            if (!ctx) {
                return ctx.err();
            }
            contexts[l.name] = std::move(*ctx);
        }
        if (l.protocol == security_protocol::sasl_plaintext ||
            l.protocol == security_protocol::sasl_ssl) {
            auto c = security::sasl::sasl_config_for(cfg.values, l.name);
            if (!c) {
                return c.err();
            }
            sasl[l.name] = std::move(*c);
        }
    }
    return {};
}

// How this node connects to `listener` on the other nodes: TLS with that
// listener's ssl.* settings when it is SSL or SASL_SSL; a SASL login with the
// inter-broker (or controller) mechanism and that listener's JAAS username
// and password when it is SASL_*; null when PLAINTEXT. A login this node
// cannot make stops it at start rather than run without it.
result<std::shared_ptr<const security::client_security>> client_security_for(
    const config::broker_config& cfg, const std::string& listener, bool controller) {
    using config::security_protocol;
    auto it = cfg.listener_security_protocol_map.find(listener);
    const auto protocol =
        it == cfg.listener_security_protocol_map.end() ? security_protocol::plaintext : it->second;
    auto out = std::make_shared<security::client_security>();
    if (protocol == security_protocol::ssl || protocol == security_protocol::sasl_ssl) {
        auto tls = security::make_client_tls(config::tls_config_for(cfg.values, listener));
        if (!tls) {
            return tls.err();
        }
        out->tls = std::move(*tls);
    }
    if (protocol == security_protocol::sasl_plaintext || protocol == security_protocol::sasl_ssl) {
        const char* key = controller ? "sasl.mechanism.controller.protocol"
                                     : "sasl.mechanism.inter.broker.protocol";
        const std::string mechanism = cfg.values.get_string(key);
        // The controller quorum authenticates before any metadata is there:
        // SCRAM's credentials live in that metadata (Kafka refuses it too).
        if (controller && mechanism != "PLAIN") {
            return error(error_code::invalid_config,
                         fmt::format("{}={} on the controller listener {}: the quorum "
                                     "authenticates before the metadata that holds SCRAM "
                                     "credentials is there; use PLAIN",
                                     key, mechanism, listener));
        }
        auto login = security::sasl::node_credentials(cfg.values, listener, mechanism);
        if (!login) {
            return error(error_code::invalid_config,
                         fmt::format("{} (listener {}): {}", key, listener, login.err().message));
        }
        out->sasl = std::move(*login);
    }
    if (!out->tls && !out->sasl) {
        return std::shared_ptr<const security::client_security>();
    }
    return std::shared_ptr<const security::client_security>(std::move(out));
}

}  // namespace listener_security

void tls_reloader::watch(listener& l) {
    auto c = config::tls_config_for(_cfg.values, l.name());
    _listeners[l.name()] = watched{&l, c, files_of(c)};
}

void tls_reloader::on_metadata(const metadata::metadata_image& prev,
                               const metadata::metadata_image& next) {
    if (_listeners.empty()) {
        return;
    }
    if (!metadata::broker_configs_changed(prev, next, _cfg.node_id)) {
        return;
    }
    const auto effective = metadata::effective_broker_config(_cfg.values, next, _cfg.node_id);
    for (auto& [name, w] : _listeners) {
        auto c = config::tls_config_for(effective, name);
        auto files = files_of(c);
        if (c == w.applied && files == w.files) {
            continue;
        }
        auto ctx = security::make_server_context(c);
        if (!ctx) {
            logging::security().error(
                "event=tls_reload_failed listener={} error=\"{}\" action=\"keeps serving the "
                "previous keystore and truststore\"",
                name, ctx.err().message);
            continue;
        }
        w.l->set_tls(std::move(*ctx));
        w.applied = std::move(c);
        w.files = std::move(files);
        logging::security().info("event=tls_reloaded listener={} keystore={} truststore={}", name,
                                 w.applied.keystore_location.value_or("(inline)"),
                                 w.applied.truststore_location.value_or("(inline or none)"));
    }
}

}  // namespace samsa::server
