#include "common/config/tls_config.h"

namespace samsa::config {

namespace {

std::optional<std::string> optional_string(const config_value* v) {
    if (!v || is_null(*v)) {
        return std::nullopt;
    }
    if (const auto* s = std::get_if<std::string>(v)) {
        return *s;
    }
    return std::nullopt;
}

}  // namespace

tls_config tls_config_for(const config_set& values, const std::string& listener) {
    auto get = [&](std::string_view key) { return values.listener_value(listener, key); };
    tls_config c;
    c.listener = listener;
    c.keystore_type = optional_string(get("ssl.keystore.type")).value_or("JKS");
    c.keystore_location = optional_string(get("ssl.keystore.location"));
    c.keystore_password = optional_string(get("ssl.keystore.password"));
    c.key_password = optional_string(get("ssl.key.password"));
    c.keystore_certificate_chain = optional_string(get("ssl.keystore.certificate.chain"));
    c.keystore_key = optional_string(get("ssl.keystore.key"));
    c.truststore_type = optional_string(get("ssl.truststore.type")).value_or("JKS");
    c.truststore_location = optional_string(get("ssl.truststore.location"));
    c.truststore_password = optional_string(get("ssl.truststore.password"));
    c.principal_mapping_rules =
        optional_string(get("ssl.principal.mapping.rules")).value_or("DEFAULT");
    c.truststore_certificates = optional_string(get("ssl.truststore.certificates"));
    auto auth = optional_string(get("ssl.client.auth")).value_or("none");
    c.client_auth = auth == "required"    ? client_auth::required
                    : auth == "requested" ? client_auth::requested
                                          : client_auth::none;
    if (const auto* l = std::get_if<list_value>(get("ssl.enabled.protocols"))) {
        c.enabled_protocols = *l;
    }
    c.protocol = optional_string(get("ssl.protocol")).value_or("TLSv1.3");
    if (const auto* l = std::get_if<list_value>(get("ssl.cipher.suites"))) {
        c.cipher_suites = *l;
    }
    c.verify_hostname =
        !optional_string(get("ssl.endpoint.identification.algorithm")).value_or("https").empty();
    return c;
}

}  // namespace samsa::config
