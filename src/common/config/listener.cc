#include "common/config/listener.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace samsa::config {

namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    for (auto& c : out) {
        if (c >= 'a' && c <= 'z') {
            c = char(c - 'a' + 'A');
        }
    }
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') {
        s.remove_prefix(1);
    }
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') {
        s.remove_suffix(1);
    }
    return s;
}

bool is_host_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '%' || c == '.' || c == '_' || c == ':';
}

bool is_ipv4_literal(std::string_view h) {
    int parts = 0;
    size_t start = 0;
    while (true) {
        size_t dot = h.find('.', start);
        std::string_view p = h.substr(start, dot == h.npos ? h.npos : dot - start);
        unsigned v = 0;
        auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), v);
        if (p.empty() || p.size() > 3 || ec != std::errc() || ptr != p.data() + p.size() ||
            v > 255) {
            return false;
        }
        ++parts;
        if (dot == h.npos) {
            break;
        }
        start = dot + 1;
    }
    return parts == 4;
}

bool is_ipv6_literal(std::string_view h) {
    return h.find(':') != h.npos;
}

error bad_endpoint(std::string_view uri, std::string_view why) {
    return error{error_code::invalid_config,
                 fmt::format("Unable to parse {} to a broker endpoint: {}", uri, why)};
}

}  // namespace

std::string normalise_listener_name(std::string_view name) {
    return upper(name);
}

std::string_view protocol_name(security_protocol p) {
    switch (p) {
        case security_protocol::plaintext:
            return "PLAINTEXT";
        case security_protocol::ssl:
            return "SSL";
        case security_protocol::sasl_plaintext:
            return "SASL_PLAINTEXT";
        case security_protocol::sasl_ssl:
            return "SASL_SSL";
    }
    return "UNKNOWN";
}

std::optional<security_protocol> parse_security_protocol(std::string_view name) {
    std::string n = upper(name);
    for (auto p : {security_protocol::plaintext, security_protocol::ssl,
                   security_protocol::sasl_plaintext, security_protocol::sasl_ssl}) {
        if (n == protocol_name(p)) {
            return p;
        }
    }
    return std::nullopt;
}

std::string listener::to_string() const {
    if (host.find(':') != std::string::npos) {
        return fmt::format("{}://[{}]:{}", name, host, port);
    }
    return fmt::format("{}://{}:{}", name, host, port);
}

result<endpoint> parse_endpoint(std::string_view uri) {
    size_t sep = uri.find("://");
    if (sep == uri.npos) {
        return bad_endpoint(uri, "expected NAME://host:port");
    }
    endpoint ep;
    ep.listener_name = upper(uri.substr(0, sep));
    if (ep.listener_name.empty()) {
        return bad_endpoint(uri, "the listener name is empty");
    }
    std::string_view rest = uri.substr(sep + 3);
    std::string_view host;
    std::string_view port;
    if (!rest.empty() && rest.front() == '[') {
        size_t close = rest.find(']');
        if (close == rest.npos) {
            return bad_endpoint(uri, "missing ']' after an IPv6 address");
        }
        host = rest.substr(1, close - 1);
        rest.remove_prefix(close + 1);
        if (rest.empty() || rest.front() != ':') {
            return bad_endpoint(uri, "expected ':port' after the host");
        }
        port = rest.substr(1);
    } else {
        size_t colon = rest.rfind(':');
        if (colon == rest.npos) {
            return bad_endpoint(uri, "expected ':port' after the host");
        }
        host = rest.substr(0, colon);
        port = rest.substr(colon + 1);
    }
    if (!std::all_of(host.begin(), host.end(), is_host_char)) {
        return bad_endpoint(uri, fmt::format("invalid host '{}'", host));
    }
    int v = -1;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
    if (port.empty() || ec != std::errc() || ptr != port.data() + port.size() || v < 0 ||
        v > 65535) {
        return bad_endpoint(uri, fmt::format("invalid port '{}', expected 0-65535", port));
    }
    ep.host = std::string(host);
    ep.port = static_cast<uint16_t>(v);
    return ep;
}

result<protocol_map> parse_protocol_map(std::string_view text) {
    protocol_map map;
    text = trim(text);
    if (text.empty()) {
        return map;
    }
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string_view entry =
            trim(text.substr(start, comma == text.npos ? text.npos : comma - start));
        size_t colon = entry.find(':');
        if (colon == entry.npos || entry.find(':', colon + 1) != entry.npos) {
            return error{error_code::invalid_config,
                         fmt::format("Error parsing configuration property "
                                     "'listener.security.protocol.map': wrong format '{}', "
                                     "NAME:PROTOCOL pairs expected",
                                     entry)};
        }
        std::string name = upper(trim(entry.substr(0, colon)));
        std::string_view proto = trim(entry.substr(colon + 1));
        auto p = parse_security_protocol(proto);
        if (name.empty() || !p) {
            return error{error_code::invalid_config,
                         fmt::format("Invalid security protocol `{}` defined in "
                                     "listener.security.protocol.map",
                                     proto)};
        }
        if (!map.emplace(name, *p).second) {
            return error{
                error_code::invalid_config,
                fmt::format("listener.security.protocol.map names listener {} twice", name)};
        }
        if (comma == text.npos) {
            break;
        }
        start = comma + 1;
    }
    return map;
}

result<std::vector<listener>> parse_listeners(const list_value& uris, const protocol_map& map,
                                              bool allow_shared_ports) {
    std::vector<listener> out;
    std::string all = fmt::format("{}", fmt::join(uris, ","));
    std::set<std::string> names;
    for (const auto& uri : uris) {
        auto ep = parse_endpoint(uri);
        if (!ep) {
            return ep.err();
        }
        auto it = map.find(ep->listener_name);
        if (it == map.end()) {
            return error{
                error_code::invalid_config,
                fmt::format("No security protocol defined for listener {}", ep->listener_name)};
        }
        if (!names.insert(ep->listener_name).second) {
            return error{
                error_code::invalid_config,
                fmt::format("Each listener must have a different name, listeners: {}", all)};
        }
        out.push_back(listener{ep->listener_name, ep->host, ep->port, it->second});
    }
    if (allow_shared_ports) {
        return out;
    }
    std::map<uint16_t, std::vector<const listener*>> by_port;
    for (const auto& l : out) {
        if (l.port != 0) {
            by_port[l.port].push_back(&l);
        }
    }
    for (const auto& [port, ls] : by_port) {
        if (ls.size() == 1) {
            continue;
        }
        bool ipv4_and_ipv6 =
            ls.size() == 2 && ((is_ipv4_literal(ls[0]->host) && is_ipv6_literal(ls[1]->host)) ||
                               (is_ipv6_literal(ls[0]->host) && is_ipv4_literal(ls[1]->host)));
        if (!ipv4_and_ipv6) {
            return error{error_code::invalid_config,
                         fmt::format("Each listener must have a different port unless exactly one "
                                     "listener has an IPv4 address and the other IPv6 address, "
                                     "listeners: {}, port: {}",
                                     all, port)};
        }
    }
    return out;
}

}  // namespace samsa::config
