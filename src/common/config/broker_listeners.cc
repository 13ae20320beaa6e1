#include "common/config/broker_listeners.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <string_view>

namespace samsa::config {

namespace {

error config_error(std::string message) {
    return error{error_code::invalid_config, std::move(message)};
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join_listeners(const std::vector<listener>& ls) {
    std::vector<std::string> parts;
    for (const auto& l : ls) {
        parts.push_back(l.to_string());
    }
    return fmt::format("{}", fmt::join(parts, ","));
}

bool is_tls_or_sasl(std::string_view name) {
    return name == "SSL" || name == "SASL_SSL" || name == "SASL_PLAINTEXT";
}

// Kafka's effectiveListenerSecurityProtocolMap: when the map is not configured,
// controller listener names map to PLAINTEXT unless TLS/SASL is in use.
result<protocol_map> effective_protocol_map(const config_set& v,
                                            const std::vector<std::string>& controller_names) {
    auto map = parse_protocol_map(v.get_string("listener.security.protocol.map"));
    if (!map) {
        return map.err();
    }
    if (v.is_configured("listener.security.protocol.map")) {
        return map;
    }
    bool secure = std::any_of(controller_names.begin(), controller_names.end(), is_tls_or_sasl);
    for (const auto& uri : v.get_list("listeners")) {
        auto ep = parse_endpoint(uri);
        if (ep && is_tls_or_sasl(ep->listener_name)) {
            secure = true;
        }
    }
    if (!secure) {
        for (const auto& n : controller_names) {
            map->emplace(n, security_protocol::plaintext);
        }
    }
    return map;
}

status check_roles(broker_config& c, const config_set& v) {
    const bool broker = c.is_broker();
    const bool controller = c.is_controller();
    const auto& names = c.controller_listener_names;
    std::vector<int32_t> voter_ids;
    for (const auto& q : c.controller_quorum_voters) {
        voter_ids.push_back(q.id);
    }
    const bool in_voters =
        std::find(voter_ids.begin(), voter_ids.end(), c.node_id) != voter_ids.end();
    const std::string voters_text =
        fmt::format("{}", fmt::join(v.get_list("controller.quorum.voters"), ","));

    if (c.controller_quorum_voters.empty() &&
        v.get_list("controller.quorum.bootstrap.servers").empty()) {
        return config_error(
            "If using process.roles, either controller.quorum.bootstrap.servers must contain the "
            "set of bootstrap controllers or controller.quorum.voters must contain a parseable set "
            "of controllers.");
    }
    if (controller && !c.controller_quorum_voters.empty() && !in_voters) {
        return config_error(fmt::format(
            "If process.roles contains the 'controller' role, the node id {} must be included in "
            "the set of voters controller.quorum.voters={}",
            c.node_id, voters_text));
    }
    if (!controller && in_voters) {
        return config_error(fmt::format(
            "If process.roles contains just the 'broker' role, the node id {} must not be included "
            "in the set of voters controller.quorum.voters={}",
            c.node_id, voters_text));
    }
    for (const auto& l : c.listeners) {
        bool is_controller_listener = contains(names, l.name);
        if (!controller && is_controller_listener) {
            return config_error(
                "controller.listener.names must not contain a value appearing in the 'listeners' "
                "configuration when running KRaft with just the broker role");
        }
        if (!broker && !is_controller_listener) {
            return config_error(fmt::format(
                "The listeners config must only contain KRaft controller listeners from "
                "controller.listener.names when process.roles=controller, found {}",
                l.to_string()));
        }
    }
    if (controller) {
        for (const auto& n : names) {
            if (!c.find_listener(n)) {
                return config_error(fmt::format(
                    "controller.listener.names must only contain values appearing in the "
                    "'listeners' configuration when running the KRaft controller role; {} is not "
                    "in listeners={}",
                    n, join_listeners(c.listeners)));
            }
        }
    }
    if (!broker) {
        return {};
    }

    // Broker role: what is advertised, and the inter-broker listener.
    if (auto adv = v.get_optional_list("advertised.listeners")) {
        auto parsed = parse_listeners(*adv, c.listener_security_protocol_map, true);
        if (!parsed) {
            return config_error(fmt::format("advertised.listeners: {}", parsed.err().message));
        }
        for (auto& l : *parsed) {
            // KIP-853: a node with the controller role may advertise its
            // controller listener too; that endpoint is for the quorum only.
            if (controller && contains(names, l.name)) {
                c.advertised_controller_listeners.push_back(std::move(l));
            } else {
                c.advertised_listeners.push_back(std::move(l));
            }
        }
    } else {
        for (const auto& l : c.listeners) {
            if (!contains(names, l.name)) {
                c.advertised_listeners.push_back(l);
            }
        }
    }
    for (const auto& l : c.advertised_listeners) {
        if (contains(names, l.name)) {
            return config_error(
                "The advertised.listeners config must not contain KRaft controller listeners from "
                "controller.listener.names when process.roles contains just the broker role, "
                "because clients only send requests to brokers");
        }
        if (l.host == "0.0.0.0" || l.host == "::") {
            return config_error(
                fmt::format("advertised.listeners cannot use the nonroutable meta-address {}. Use "
                            "a routable IP "
                            "address.",
                            l.host));
        }
    }
    if (v.is_configured("inter.broker.listener.name")) {
        if (v.is_configured("security.inter.broker.protocol")) {
            return config_error(
                "Only one of inter.broker.listener.name and security.inter.broker.protocol should "
                "be set.");
        }
        c.inter_broker_listener_name =
            normalise_listener_name(v.get_string("inter.broker.listener.name"));
    } else {
        c.inter_broker_listener_name = v.get_string("security.inter.broker.protocol");
    }
    if (contains(names, c.inter_broker_listener_name)) {
        return config_error(fmt::format(
            "controller.listener.names must not contain the inter-broker listener name {}",
            c.inter_broker_listener_name));
    }
    bool advertised =
        std::any_of(c.advertised_listeners.begin(), c.advertised_listeners.end(),
                    [&](const listener& l) { return l.name == c.inter_broker_listener_name; });
    if (!advertised) {
        std::vector<std::string> options;
        for (const auto& l : c.advertised_listeners) {
            options.push_back(l.name);
        }
        return config_error(fmt::format(
            "inter.broker.listener.name must be a listener name defined in advertised.listeners. "
            "The valid options based on currently configured listeners are {}",
            fmt::join(options, ",")));
    }
    return {};
}

// "host:port" or "[v6]:port" of controller.quorum.bootstrap.servers.
std::optional<std::pair<std::string, uint16_t>> parse_host_port(std::string_view text) {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos || colon + 1 >= text.size()) {
        return std::nullopt;
    }
    std::string host(text.substr(0, colon));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    int port = 0;
    for (char ch : text.substr(colon + 1)) {
        if (ch < '0' || ch > '9' || port > 65535) {
            return std::nullopt;
        }
        port = port * 10 + (ch - '0');
    }
    if (port <= 0 || port > 65535) {
        return std::nullopt;
    }
    return std::pair{host, uint16_t(port)};
}

// Whether `host:port` reaches this node's controller listener `l`.
bool is_own_controller_endpoint(const broker_config& c, const listener& l, const std::string& host,
                                uint16_t port) {
    if (l.port != port) {
        return false;
    }
    if (l.host.empty() || l.host == "0.0.0.0" || l.host == "::" || l.host == host) {
        return true;
    }
    return std::any_of(c.advertised_controller_listeners.begin(),
                       c.advertised_controller_listeners.end(),
                       [&](const listener& a) { return a.host == host && a.port == port; });
}

}  // namespace

// KIP-853 without dynamic membership: controller.quorum.bootstrap.servers
// alone (Kafka 4's shipped server.properties) is taken as `kafka-storage
// format --standalone` takes it, when it names exactly one server and that is
// this controller: the node is the quorum's only voter. Any other use needs
// voters that join and leave at run time, which Samsa does not do; the broker
// stops at start naming the key, rather than failing later (a voter set of
// none cannot elect anyone).
static status resolve_bootstrap_voters(broker_config& c, const config_set& v) {
    if (!c.controller_quorum_voters.empty()) {
        return {};
    }
    const auto servers = v.get_list("controller.quorum.bootstrap.servers");
    const std::string unsupported = fmt::format(
        "controller.quorum.bootstrap.servers={} without controller.quorum.voters is supported "
        "only for a single controller that names itself (a standalone quorum); dynamic quorum "
        "membership (KIP-853) is not supported: list the voters in controller.quorum.voters "
        "(id@host:port,...)",
        fmt::join(servers, ","));
    if (!c.is_controller() || servers.size() != 1 || c.controller_listener_names.empty()) {
        return config_error(unsupported);
    }
    auto hp = parse_host_port(servers[0]);
    if (!hp) {
        return config_error(
            fmt::format("controller.quorum.bootstrap.servers: '{}' is not host:port", servers[0]));
    }
    const listener* own = c.find_listener(c.controller_listener_names.front());
    if (!own || !is_own_controller_endpoint(c, *own, hp->first, hp->second)) {
        return config_error(unsupported);
    }
    c.controller_quorum_voters.push_back({c.node_id, hp->first, hp->second});
    return {};
}

status resolve_broker_listeners(broker_config& c, const config_set& v) {
    auto map = effective_protocol_map(v, c.controller_listener_names);
    if (!map) {
        return map.err();
    }
    c.listener_security_protocol_map = std::move(*map);
    for (const auto& n : c.controller_listener_names) {
        if (!c.listener_security_protocol_map.count(n)) {
            return config_error(fmt::format(
                "Controller listener with name {} defined in controller.listener.names not found "
                "in listener.security.protocol.map (an explicit security mapping for each "
                "controller "
                "listener is required if listener.security.protocol.map is set, or if TLS or SASL "
                "is in use)",
                n));
        }
    }
    auto listeners = parse_listeners(v.get_list("listeners"), c.listener_security_protocol_map);
    if (!listeners) {
        return config_error(fmt::format("Error creating broker listeners from '{}': {}",
                                        fmt::join(v.get_list("listeners"), ","),
                                        listeners.err().message));
    }
    c.listeners = std::move(*listeners);
    if (auto st = check_roles(c, v); !st) {
        return st;
    }
    return resolve_bootstrap_voters(c, v);
}

}  // namespace samsa::config
