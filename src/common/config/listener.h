#pragma once
// Listeners: `NAME://host:port` as Kafka's `listeners` / `advertised.listeners`
// spell them, and the listener name → security protocol map.
//
// * The name is case-insensitive and normalised to upper case (Kafka's
//   ListenerName.normalised); PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL map to
//   themselves unless listener.security.protocol.map says otherwise.
// * An empty host (`PLAINTEXT://:9092`) binds every interface; an IPv6 literal may
//   be bracketed (`SSL://[::1]:9093`). Port 0 asks the OS for a free port (tests).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/config_value.h"
#include "common/result.h"

namespace samsa::config {

enum class security_protocol : uint8_t { plaintext, ssl, sasl_plaintext, sasl_ssl };

// Kafka's ListenerName.normalised: listener names compare in upper case.
std::string normalise_listener_name(std::string_view name);

// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL".
std::string_view protocol_name(security_protocol p);
// Case-insensitive, as Kafka's SecurityProtocol.forName.
std::optional<security_protocol> parse_security_protocol(std::string_view name);

// A parsed `NAME://host:port`, before its security protocol is known.
struct endpoint {
    std::string listener_name;  // upper case
    std::string host;           // "" = all interfaces; IPv6 without brackets
    uint16_t port = 0;
};

struct listener {
    std::string name;  // upper case
    std::string host;  // "" = all interfaces
    uint16_t port = 0;
    security_protocol protocol = security_protocol::plaintext;

    // "NAME://host:port", IPv6 hosts bracketed.
    std::string to_string() const;
};

using protocol_map = std::map<std::string, security_protocol>;

// Kafka's default listener.security.protocol.map string.
inline constexpr std::string_view k_default_protocol_map =
    "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT";

result<endpoint> parse_endpoint(std::string_view uri);

// "NAME:PROTOCOL,NAME:PROTOCOL"; names normalised to upper case.
result<protocol_map> parse_protocol_map(std::string_view text);

// Parses every URI and resolves its protocol through `map`. Names must be
// distinct; unless `allow_shared_ports`, so must ports (port 0 excepted, and one
// IPv4 plus one IPv6 literal may share a port, as Kafka allows).
result<std::vector<listener>> parse_listeners(const list_value& uris, const protocol_map& map,
                                              bool allow_shared_ports = false);

}  // namespace samsa::config
