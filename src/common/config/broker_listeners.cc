#include "common/config/broker_listeners.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

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
        c.advertised_listeners = std::move(*parsed);
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
                "controller.listener.names when process.roles contains the broker role, because "
                "clients only send requests to brokers");
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

}  // namespace

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
    return check_roles(c, v);
}

}  // namespace samsa::config
