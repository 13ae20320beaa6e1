#pragma once
// tls_config: one SSL listener's TLS settings, Kafka's ssl.* keys as that
// listener sees them (listener.name.<listener>.ssl.* first, then ssl.*).
// Only PEM key and trust stores are read: JKS and PKCS12 are Java's.
#include <optional>
#include <string>
#include <vector>

#include "common/config/config_set.h"

namespace samsa::config {

enum class client_auth : uint8_t { none, requested, required };

struct tls_config {
    std::string listener;  // upper case
    std::string keystore_type;
    std::optional<std::string> keystore_location;
    std::optional<std::string> keystore_password;
    std::optional<std::string> key_password;
    std::optional<std::string> keystore_certificate_chain;  // inline PEM
    std::optional<std::string> keystore_key;                // inline PEM
    std::string truststore_type;
    std::optional<std::string> truststore_location;
    std::optional<std::string> truststore_password;      // refused with PEM, as Kafka does
    std::optional<std::string> truststore_certificates;  // inline PEM
    std::string principal_mapping_rules = "DEFAULT";     // ssl.principal.mapping.rules
    config::client_auth client_auth = client_auth::none;
    std::vector<std::string> enabled_protocols;  // "TLSv1.2", "TLSv1.3"
    std::string protocol;                        // ssl.protocol: the highest version
    std::vector<std::string> cipher_suites;      // IANA names; empty: defaults
    // ssl.endpoint.identification.algorithm=https: as a client, the peer's
    // certificate must name the host connected to.
    bool verify_hostname = true;

    bool operator==(const tls_config&) const = default;
};

// The listener's settings from `values`.
tls_config tls_config_for(const config_set& values, const std::string& listener);

}  // namespace samsa::config
