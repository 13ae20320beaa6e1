// client_security_of(): the --command-config of a verb's raw calls, read as
// Kafka's Java clients and librdkafka read theirs, so one file serves both
// kinds of verbs:
//
//   security.protocol   PLAINTEXT (default), SSL, SASL_PLAINTEXT, SASL_SSL
//   TLS                 ssl.truststore.location (PEM) or librdkafka's
//                       ssl.ca.location; a client certificate from
//                       ssl.keystore.location (PEM: key and chain) or
//                       ssl.certificate.location + ssl.key.location;
//                       ssl.key.password; ssl.endpoint.identification.algorithm
//                       (https by default, empty to skip the host check)
//   SASL                sasl.mechanism (librdkafka: sasl.mechanisms), PLAIN or
//                       SCRAM-SHA-256/512; the login from sasl.username and
//                       sasl.password, or the username and password options of
//                       sasl.jaas.config
//
// Anything it cannot honour (GSSAPI, a JKS store, no login) is an error that
// names the key: a verb never speaks plaintext where security was asked for.
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "security/sasl/jaas_config.h"
#include "tools/client_options.h"

namespace samsa::tools {

namespace {

std::string upper(std::string s) {
    for (auto& ch : s) {
        ch = char(std::toupper(static_cast<unsigned char>(ch)));
    }
    return s;
}

result<std::string> read_file(const std::string& key, const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return tool_error(key + ": cannot read " + path);
    }
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

result<std::shared_ptr<const security::client_tls>> tls_of(
    const std::map<std::string, std::string>& s, const std::string& source) {
    auto get = [&](const std::string& k) -> std::optional<std::string> {
        auto it = s.find(k);
        return it == s.end() || it->second.empty() ? std::nullopt : std::optional(it->second);
    };
    config::tls_config c;
    c.listener = source;
    c.keystore_type = "PEM";
    c.truststore_type = "PEM";
    for (const char* k : {"ssl.keystore.type", "ssl.truststore.type"}) {
        if (auto t = get(k); t && upper(*t) != "PEM") {
            return tool_error(std::string(k) + "=" + *t + " in " + source +
                              " is not supported: use PEM files");
        }
    }
    c.truststore_location = get("ssl.truststore.location");
    if (!c.truststore_location) {
        c.truststore_location = get("ssl.ca.location");
    }
    c.keystore_location = get("ssl.keystore.location");
    c.key_password = get("ssl.key.password");
    if (!c.key_password) {
        c.key_password = get("ssl.keystore.password");
    }
    auto cert = get("ssl.certificate.location");
    auto key = get("ssl.key.location");
    if (cert || key) {
        if (!cert || !key) {
            return tool_error("ssl.certificate.location and ssl.key.location in " + source +
                              " go together");
        }
        auto chain = read_file("ssl.certificate.location", *cert);
        if (!chain) {
            return chain.err();
        }
        auto pem = read_file("ssl.key.location", *key);
        if (!pem) {
            return pem.err();
        }
        c.keystore_certificate_chain = std::move(*chain);
        c.keystore_key = std::move(*pem);
    }
    c.enabled_protocols = {"TLSv1.2", "TLSv1.3"};
    c.protocol = "TLSv1.3";
    auto algorithm = s.find("ssl.endpoint.identification.algorithm");
    c.verify_hostname = algorithm == s.end() || !algorithm->second.empty();
    return security::make_client_tls(c);
}

result<security::sasl::sasl_credentials> login_of(const std::map<std::string, std::string>& s,
                                                  const std::string& source) {
    auto get = [&](const std::string& k) -> std::optional<std::string> {
        auto it = s.find(k);
        return it == s.end() ? std::nullopt : std::optional(it->second);
    };
    security::sasl::sasl_credentials c;
    c.mechanism = upper(get("sasl.mechanism").value_or(get("sasl.mechanisms").value_or("GSSAPI")));
    if (c.mechanism != "PLAIN" && c.mechanism != "SCRAM-SHA-256" &&
        c.mechanism != "SCRAM-SHA-512") {
        return tool_error("sasl.mechanism=" + c.mechanism + " in " + source +
                          " is not spoken by this command: use PLAIN, SCRAM-SHA-256 or "
                          "SCRAM-SHA-512");
    }
    auto user = get("sasl.username");
    auto password = get("sasl.password");
    if (auto jaas = get("sasl.jaas.config"); jaas && (!user || !password)) {
        auto module = security::sasl::parse_jaas_config(*jaas);
        if (!module) {
            return tool_error("sasl.jaas.config in " + source + ": " + module.err().message);
        }
        if (auto u = module->options.find("username"); u != module->options.end()) {
            user = u->second;
        }
        if (auto p = module->options.find("password"); p != module->options.end()) {
            password = p->second;
        }
    }
    if (!user || !password) {
        return tool_error(source +
                          " has no SASL login: set sasl.username and sasl.password, or "
                          "sasl.jaas.config with username and password");
    }
    c.username = std::move(*user);
    c.password = std::move(*password);
    return c;
}

// The settings by key, the last line for a key winning (Java's Properties).
std::map<std::string, std::string> by_key(const property_list& settings) {
    std::map<std::string, std::string> s;
    for (const auto& [k, v] : settings) {
        s[k] = v;
    }
    return s;
}

result<std::shared_ptr<const security::client_security>> read_client_security(
    const std::string& source) {
    auto loaded = load_properties_file(source);
    if (!loaded) {
        return loaded.err();
    }
    auto s = by_key(*loaded);
    const std::string protocol =
        upper(s.count("security.protocol") ? s["security.protocol"] : "PLAINTEXT");
    if (protocol == "PLAINTEXT") {
        return std::shared_ptr<const security::client_security>();
    }
    if (protocol != "SSL" && protocol != "SASL_SSL" && protocol != "SASL_PLAINTEXT") {
        return tool_error("security.protocol=" + protocol + " in " + source +
                          " is not a security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, "
                          "SASL_SSL)");
    }
    auto out = std::make_shared<security::client_security>();
    if (protocol == "SSL" || protocol == "SASL_SSL") {
        auto tls = tls_of(s, source);
        if (!tls) {
            return tls.err();
        }
        out->tls = std::move(*tls);
    }
    if (protocol == "SASL_PLAINTEXT" || protocol == "SASL_SSL") {
        auto login = login_of(s, source);
        if (!login) {
            return login.err();
        }
        out->sasl = std::move(*login);
    }
    return std::shared_ptr<const security::client_security>(std::move(out));
}

}  // namespace

result<property_list> for_librdkafka(const property_list& settings) {
    const auto s = by_key(settings);
    auto has = [&](const char* k) { return s.count(k) > 0; };
    auto pem = [&](const char* type_key) {
        auto it = s.find(type_key);
        return it != s.end() && upper(it->second) == "PEM";
    };
    property_list out;
    for (const auto& [k, v] : settings) {
        if (k == "sasl.jaas.config") {
            if (has("sasl.username") && has("sasl.password")) {
                continue;
            }
            auto module = security::sasl::parse_jaas_config(v);
            if (!module) {
                return tool_error("sasl.jaas.config: " + module.err().message);
            }
            for (const char* option : {"username", "password"}) {
                auto it = module->options.find(option);
                if (it != module->options.end()) {
                    out.emplace_back(std::string("sasl.") + option, it->second);
                }
            }
        } else if (k == "ssl.truststore.location" && pem("ssl.truststore.type")) {
            if (!has("ssl.ca.location")) {
                out.emplace_back("ssl.ca.location", v);
            }
        } else if (k == "ssl.keystore.location" && pem("ssl.keystore.type")) {
            if (!has("ssl.certificate.location")) {
                out.emplace_back("ssl.certificate.location", v);
                out.emplace_back("ssl.key.location", v);
            }
        } else if (k == "ssl.truststore.type" || k == "ssl.keystore.type") {
            continue;  // said by the keys above
        } else {
            out.emplace_back(k, v);
        }
    }
    return out;
}

result<std::shared_ptr<const security::client_security>> client_security_of(
    const client_options& opts) {
    if (opts.command_config.empty()) {
        return std::shared_ptr<const security::client_security>();
    }
    // A verb calls many brokers: the file is read, and its TLS context built,
    // once per process.
    static std::mutex mutex;
    static std::map<std::string, result<std::shared_ptr<const security::client_security>>> read;
    std::lock_guard lock(mutex);
    auto it = read.find(opts.command_config);
    if (it == read.end()) {
        it = read.emplace(opts.command_config, read_client_security(opts.command_config)).first;
    }
    return it->second;
}

}  // namespace samsa::tools
