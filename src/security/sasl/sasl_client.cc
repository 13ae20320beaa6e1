#include "security/sasl/sasl_client.h"

#include <fmt/format.h>

#include <string_view>

#include "security/sasl/jaas_config.h"
#include "security/sasl/scram.h"

namespace samsa::security::sasl {

namespace {

bytes to_bytes(std::string_view s) {
    return bytes(s.begin(), s.end());
}

class plain_client final : public sasl_client {
  public:
    explicit plain_client(sasl_credentials c) : _c(std::move(c)) {}
    result<bytes> next(bytes_view) override {
        if (_sent) {
            _complete = true;  // the server answers an empty token, or fails the exchange
            return bytes{};
        }
        _sent = true;
        std::string token;
        token.push_back('\0');
        token += _c.username;
        token.push_back('\0');
        token += _c.password;
        return to_bytes(token);
    }
    bool complete() const override { return _complete; }

  private:
    sasl_credentials _c;
    bool _sent = false;
    bool _complete = false;
};

// RFC 5802 saslname: ',' and '=' escaped.
std::string sasl_name(std::string_view name) {
    std::string out;
    for (char ch : name) {
        if (ch == ',') {
            out += "=2C";
        } else if (ch == '=') {
            out += "=3D";
        } else {
            out.push_back(ch);
        }
    }
    return out;
}

// The value of attribute `name` in a "a=...,b=..." SCRAM message.
std::optional<std::string_view> attribute(std::string_view message, char name) {
    size_t at = 0;
    while (at < message.size()) {
        size_t end = message.find(',', at);
        if (end == std::string_view::npos) {
            end = message.size();
        }
        auto field = message.substr(at, end - at);
        if (field.size() >= 2 && field[0] == name && field[1] == '=') {
            return field.substr(2);
        }
        at = end + 1;
    }
    return std::nullopt;
}

class scram_client final : public sasl_client {
  public:
    scram_client(scram_mechanism m, sasl_credentials c) : _m(m), _c(std::move(c)) {}

    result<bytes> next(bytes_view server_token) override {
        const std::string_view server(reinterpret_cast<const char*>(server_token.data()),
                                      server_token.size());
        switch (_step++) {
            case 0:
                return client_first();
            case 1:
                return client_final(server);
            case 2:
                return check_server_final(server);
            default:
                return error(error_code::illegal_sasl_state, "the SCRAM exchange is over");
        }
    }
    bool complete() const override { return _complete; }

  private:
    result<bytes> client_first() {
        auto random = scram_random_salt();
        if (!random) {
            return error(error_code::sasl_authentication_failed, "no random source for a nonce");
        }
        _nonce = base64_encode(*random);
        _client_first_bare = fmt::format("n={},r={}", sasl_name(_c.username), _nonce);
        return to_bytes("n,," + _client_first_bare);
    }

    result<bytes> client_final(std::string_view server_first) {
        if (auto e = attribute(server_first, 'e')) {
            return error(error_code::sasl_authentication_failed,
                         fmt::format("the server refused the exchange: {}", *e));
        }
        auto nonce = attribute(server_first, 'r');
        auto salt_text = attribute(server_first, 's');
        auto iterations_text = attribute(server_first, 'i');
        if (!nonce || !salt_text || !iterations_text || nonce->substr(0, _nonce.size()) != _nonce ||
            nonce->size() <= _nonce.size()) {
            return error(error_code::sasl_authentication_failed,
                         "the server's first SCRAM message is malformed");
        }
        auto salt = base64_decode(*salt_text);
        int32_t iterations = 0;
        for (char ch : *iterations_text) {
            if (ch < '0' || ch > '9' || iterations > scram_max_iterations) {
                iterations = -1;
                break;
            }
            iterations = iterations * 10 + (ch - '0');
        }
        if (!salt || iterations < scram_min_iterations || iterations > scram_max_iterations) {
            return error(error_code::sasl_authentication_failed,
                         "the server's salt or iteration count is out of bounds");
        }
        const std::string without_proof = fmt::format("c=biws,r={}", *nonce);
        const std::string auth_message =
            _client_first_bare + "," + std::string(server_first) + "," + without_proof;
        const bytes salted = scram_salted_password(_m, _c.password, *salt, iterations);
        const bytes client_key = scram_hmac(_m, salted, to_bytes("Client Key"));
        const bytes stored_key = scram_hash(_m, client_key);
        const bytes signature = scram_hmac(_m, stored_key, to_bytes(auth_message));
        bytes proof = client_key;
        for (size_t i = 0; i < proof.size() && i < signature.size(); ++i) {
            proof[i] ^= signature[i];
        }
        const bytes server_key = scram_hmac(_m, salted, to_bytes("Server Key"));
        _server_signature = scram_hmac(_m, server_key, to_bytes(auth_message));
        return to_bytes(fmt::format("{},p={}", without_proof, base64_encode(proof)));
    }

    result<bytes> check_server_final(std::string_view server_final) {
        if (auto e = attribute(server_final, 'e')) {
            return error(error_code::sasl_authentication_failed,
                         fmt::format("the server refused the proof: {}", *e));
        }
        auto v = attribute(server_final, 'v');
        auto signature = v ? base64_decode(*v) : std::nullopt;
        if (!signature || *signature != _server_signature) {
            return error(error_code::sasl_authentication_failed,
                         "the server's signature does not match: it does not know the password");
        }
        _complete = true;
        return bytes{};
    }

    scram_mechanism _m;
    sasl_credentials _c;
    int _step = 0;
    std::string _nonce;
    std::string _client_first_bare;
    bytes _server_signature;
    bool _complete = false;
};

}  // namespace

result<sasl_credentials> node_credentials(const config::config_set& values,
                                          const std::string& listener,
                                          const std::string& mechanism) {
    if (mechanism != "PLAIN" && scram_mechanism_named(mechanism) == scram_mechanism::unknown) {
        return error(error_code::invalid_config,
                     fmt::format("SASL mechanism {} is not spoken between nodes: use PLAIN, "
                                 "SCRAM-SHA-256 or SCRAM-SHA-512",
                                 mechanism));
    }
    auto lower = [](std::string s) {
        for (auto& ch : s) {
            ch = char(std::tolower(static_cast<unsigned char>(ch)));
        }
        return s;
    };
    const std::string key = lower(mechanism) + ".sasl.jaas.config";
    const std::string full = fmt::format("listener.name.{}.{}", lower(listener), key);
    auto jaas = values.listener_raw(listener, key);
    if (!jaas) {
        return error(error_code::invalid_config,
                     fmt::format("{} needs {} with username=\"...\" password=\"...\" options: the "
                                 "login this node uses to reach the other nodes",
                                 mechanism, full));
    }
    auto module = parse_jaas_config(*jaas);
    if (!module) {
        return error(error_code::invalid_config, fmt::format("{}: {}", full, module.err().message));
    }
    auto user = module->options.find("username");
    auto password = module->options.find("password");
    if (user == module->options.end() || password == module->options.end()) {
        return error(error_code::invalid_config,
                     fmt::format("{} has no username and password options: the login this node "
                                 "uses to reach the other nodes",
                                 full));
    }
    return sasl_credentials{mechanism, user->second, password->second};
}

result<std::unique_ptr<sasl_client>> make_sasl_client(const sasl_credentials& c) {
    if (c.mechanism == "PLAIN") {
        return std::unique_ptr<sasl_client>(std::make_unique<plain_client>(c));
    }
    const auto m = scram_mechanism_named(c.mechanism);
    if (m != scram_mechanism::unknown) {
        return std::unique_ptr<sasl_client>(std::make_unique<scram_client>(m, c));
    }
    return error(error_code::invalid_config,
                 fmt::format("SASL mechanism {} is not supported between nodes: use PLAIN, "
                             "SCRAM-SHA-256 or SCRAM-SHA-512",
                             c.mechanism));
}

}  // namespace samsa::security::sasl
