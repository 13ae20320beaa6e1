#include "security/tls_context.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "common/config/principal_mapping_rules.h"

namespace samsa::security {

namespace {

// The SSL_CTX slot of a server context's ssl.principal.mapping.rules.
int mapping_rules_index() {
    static const int index = SSL_CTX_get_ex_new_index(
        0, nullptr, nullptr, nullptr, [](void*, void* rules, CRYPTO_EX_DATA*, int, long, void*) {
            delete static_cast<config::principal_mapping_rules*>(rules);
        });
    return index;
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return char(std::toupper(c)); });
    return s;
}

// The OpenSSL errors queued on this thread, oldest first, and clears them.
std::string openssl_errors() {
    std::string out;
    while (unsigned long e = ERR_get_error()) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof buf);
        if (!out.empty()) {
            out += "; ";
        }
        out += buf;
    }
    return out.empty() ? "unknown error" : out;
}

error config_error(const config::tls_config& c, std::string what) {
    return error(error_code::invalid_config,
                 fmt::format("listener {} (SSL): {}", c.listener, std::move(what)));
}

int version_of(const std::string& name) {
    if (name == "TLSv1.2") {
        return TLS1_2_VERSION;
    }
    if (name == "TLSv1.3" || name == "TLS") {
        return TLS1_3_VERSION;
    }
    return 0;
}

status set_versions(SSL_CTX* ctx, const config::tls_config& c) {
    int lowest = 0, highest = 0;
    for (const auto& p : c.enabled_protocols) {
        int v = version_of(p);
        if (v == 0) {
            return config_error(c, fmt::format("ssl.enabled.protocols: {} is not supported "
                                               "(TLSv1.2, TLSv1.3)",
                                               p));
        }
        lowest = lowest == 0 ? v : std::min(lowest, v);
        highest = std::max(highest, v);
    }
    if (lowest == 0) {
        return config_error(c, "ssl.enabled.protocols is empty");
    }
    highest = std::min(highest, version_of(c.protocol));
    if (highest < lowest) {
        return config_error(
            c, fmt::format("ssl.protocol {} is below every ssl.enabled.protocols", c.protocol));
    }
    SSL_CTX_set_min_proto_version(ctx, lowest);
    SSL_CTX_set_max_proto_version(ctx, highest);
    return {};
}

// ssl.cipher.suites names suites as IANA (and Java) do; OpenSSL takes TLS 1.3
// suites by those names and TLS 1.2 ones by its own.
status set_ciphers(SSL_CTX* ctx, const config::tls_config& c) {
    if (c.cipher_suites.empty()) {
        return {};
    }
    std::map<std::string, std::string> tls12;  // IANA -> OpenSSL
    SSL_CTX* probe = SSL_CTX_new(TLS_server_method());
    if (!probe || !SSL_CTX_set_cipher_list(probe, "ALL:COMPLEMENTOFALL")) {
        if (probe) {
            SSL_CTX_free(probe);
        }
        return config_error(c, "ssl.cipher.suites: " + openssl_errors());
    }
    STACK_OF(SSL_CIPHER)* all = SSL_CTX_get_ciphers(probe);
    for (int i = 0; i < sk_SSL_CIPHER_num(all); ++i) {
        const SSL_CIPHER* cipher = sk_SSL_CIPHER_value(all, i);
        if (const char* std_name = SSL_CIPHER_standard_name(cipher)) {
            tls12.emplace(std_name, SSL_CIPHER_get_name(cipher));
        }
    }
    SSL_CTX_free(probe);
    std::string list12, list13;
    for (const auto& name : c.cipher_suites) {
        static const char* const tls13_suites[] = {
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256"};
        bool is13 = std::find(std::begin(tls13_suites), std::end(tls13_suites), name) !=
                    std::end(tls13_suites);
        if (is13) {
            list13 += (list13.empty() ? "" : ":") + name;
            continue;
        }
        auto it = tls12.find(name);
        if (it == tls12.end()) {
            return config_error(c, fmt::format("ssl.cipher.suites: {} is not a cipher suite "
                                               "this build of OpenSSL offers",
                                               name));
        }
        list12 += (list12.empty() ? "" : ":") + it->second;
    }
    // A list naming no suite of one version disables that version's suites.
    if (!SSL_CTX_set_cipher_list(ctx, list12.empty() ? "aNULL:!aNULL" : list12.c_str()) &&
        !list12.empty()) {
        return config_error(c, "ssl.cipher.suites: " + openssl_errors());
    }
    ERR_clear_error();
    if (!SSL_CTX_set_ciphersuites(ctx, list13.c_str())) {
        return config_error(c, "ssl.cipher.suites: " + openssl_errors());
    }
    return {};
}

status load_keystore(asio::ssl::context& ctx, const config::tls_config& c) {
    if (!c.keystore_location && !c.keystore_certificate_chain && !c.keystore_key) {
        return config_error(c,
                            "no keystore: set ssl.keystore.type=PEM and "
                            "ssl.keystore.location, or ssl.keystore.certificate.chain and "
                            "ssl.keystore.key");
    }
    if (upper(c.keystore_type) != "PEM") {
        return config_error(c, fmt::format("ssl.keystore.type {} is not supported: use PEM "
                                           "(JKS and PKCS12 keystores are Java formats)",
                                           c.keystore_type));
    }
    const auto password = c.key_password ? c.key_password : c.keystore_password;
    if (password) {
        ctx.set_password_callback(
            [p = *password](size_t, asio::ssl::context::password_purpose) { return p; });
    }
    std::error_code ec;
    if (c.keystore_certificate_chain || c.keystore_key) {
        if (!c.keystore_certificate_chain || !c.keystore_key) {
            return config_error(c,
                                "ssl.keystore.certificate.chain and ssl.keystore.key go "
                                "together");
        }
        if (c.keystore_location) {
            return config_error(c,
                                "set ssl.keystore.location or the inline "
                                "ssl.keystore.certificate.chain and ssl.keystore.key, not both");
        }
        ctx.use_certificate_chain(asio::buffer(*c.keystore_certificate_chain), ec);
        if (ec) {
            return config_error(c, "ssl.keystore.certificate.chain: " + ec.message());
        }
        ctx.use_private_key(asio::buffer(*c.keystore_key), asio::ssl::context::pem, ec);
        if (ec) {
            return config_error(c, "ssl.keystore.key: " + ec.message());
        }
    } else if (c.keystore_location) {
        ctx.use_certificate_chain_file(*c.keystore_location, ec);
        if (ec) {
            return config_error(c, fmt::format("ssl.keystore.location {}: no certificate chain: {}",
                                               *c.keystore_location, ec.message()));
        }
        ctx.use_private_key_file(*c.keystore_location, asio::ssl::context::pem, ec);
        if (ec) {
            return config_error(c, fmt::format("ssl.keystore.location {}: no usable private "
                                               "key (a wrong ssl.key.password?): {}",
                                               *c.keystore_location, ec.message()));
        }
    } else {
        return config_error(c,
                            "no keystore: set ssl.keystore.location, or "
                            "ssl.keystore.certificate.chain and ssl.keystore.key");
    }
    if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
        return config_error(c,
                            "the private key does not match the certificate: " + openssl_errors());
    }
    return {};
}

status load_truststore(asio::ssl::context& ctx, const config::tls_config& c) {
    if (!c.truststore_location && !c.truststore_certificates) {
        if (c.client_auth != config::client_auth::none) {
            return config_error(c,
                                "ssl.client.auth needs a truststore: set "
                                "ssl.truststore.location or ssl.truststore.certificates");
        }
        return {};
    }
    if (upper(c.truststore_type) != "PEM") {
        return config_error(
            c, fmt::format("ssl.truststore.type {} is not supported: use PEM", c.truststore_type));
    }
    if (c.truststore_password) {
        // A PEM truststore holds no secret; Kafka refuses the key rather than ignore it.
        return config_error(c, "ssl.truststore.password cannot be specified for PEM format");
    }
    if (c.truststore_location) {
        std::error_code ec;
        ctx.load_verify_file(*c.truststore_location, ec);
        if (ec) {
            return config_error(c, fmt::format("ssl.truststore.location {}: {}",
                                               *c.truststore_location, ec.message()));
        }
        return {};
    }
    const std::string& pem = *c.truststore_certificates;
    BIO* bio = BIO_new_mem_buf(pem.data(), int(pem.size()));
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.native_handle());
    int added = 0;
    while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
        X509_STORE_add_cert(store, cert);
        X509_free(cert);
        ++added;
    }
    BIO_free(bio);
    ERR_clear_error();  // the loop ends on a "no start line" error
    if (added == 0) {
        return config_error(c, "ssl.truststore.certificates holds no PEM certificate");
    }
    return {};
}

}  // namespace

result<std::shared_ptr<asio::ssl::context>> make_server_context(const config::tls_config& c) {
    auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::single_dh_use);
    if (auto s = set_versions(ctx->native_handle(), c); !s) {
        return s.err();
    }
    if (auto s = set_ciphers(ctx->native_handle(), c); !s) {
        return s.err();
    }
    if (auto s = load_keystore(*ctx, c); !s) {
        return s.err();
    }
    if (auto s = load_truststore(*ctx, c); !s) {
        return s.err();
    }
    auto rules = config::principal_mapping_rules::parse(c.principal_mapping_rules);
    if (!rules) {
        return config_error(c, rules.err().message);
    }
    // Owned by the context: freed with it (mapping_rules_index's free callback).
    SSL_CTX_set_ex_data(ctx->native_handle(), mapping_rules_index(),
                        new config::principal_mapping_rules(std::move(*rules)));
    switch (c.client_auth) {
        case config::client_auth::required:
            ctx->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
            break;
        case config::client_auth::requested:
            ctx->set_verify_mode(asio::ssl::verify_peer);
            break;
        case config::client_auth::none:
            ctx->set_verify_mode(asio::ssl::verify_none);
            break;
    }
    return ctx;
}

result<std::shared_ptr<const client_tls>> make_client_tls(const config::tls_config& c) {
    auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3);
    if (auto s = set_versions(ctx->native_handle(), c); !s) {
        return s.err();
    }
    if (auto s = set_ciphers(ctx->native_handle(), c); !s) {
        return s.err();
    }
    if (c.keystore_location || c.keystore_certificate_chain || c.keystore_key) {
        if (auto s = load_keystore(*ctx, c); !s) {
            return s.err();
        }
    }
    if (c.truststore_location || c.truststore_certificates) {
        if (auto s = load_truststore(*ctx, c); !s) {
            return s.err();
        }
    } else {
        std::error_code ec;
        ctx->set_default_verify_paths(ec);
        if (ec) {
            return config_error(c, "no truststore and no system CA certificates: " + ec.message());
        }
    }
    ctx->set_verify_mode(asio::ssl::verify_peer);
    return std::make_shared<const client_tls>(client_tls{std::move(ctx), c.verify_hostname});
}

result<std::string> principal_of(SSL* ssl) {
    X509* cert = SSL_get1_peer_certificate(ssl);
    if (!cert) {
        return std::string("ANONYMOUS");
    }
    std::string out;
    if (BIO* bio = BIO_new(BIO_s_mem())) {
        X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
        char* data = nullptr;
        long n = BIO_get_mem_data(bio, &data);
        out.assign(data, size_t(n));
        BIO_free(bio);
    }
    X509_free(cert);
    const auto* rules = static_cast<const config::principal_mapping_rules*>(
        SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), mapping_rules_index()));
    if (!rules) {
        return out;
    }
    if (!rules->only_default() && out.size() > config::principal_mapping_rules::k_max_subject) {
        return error{error_code::sasl_authentication_failed,
                     fmt::format("the certificate's subject is over {} bytes, too long for "
                                 "ssl.principal.mapping.rules",
                                 config::principal_mapping_rules::k_max_subject)};
    }
    if (auto name = rules->map(out)) {
        return *name;
    }
    return error{error_code::sasl_authentication_failed,
                 "no ssl.principal.mapping.rules rule applies to \"" + out + "\""};
}

}  // namespace samsa::security
