#include "security/sasl/scram_server.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <vector>

namespace samsa::security::sasl {

namespace {

// A message's comma-separated attributes, each "<letter>=<value>".
std::optional<std::vector<std::pair<std::string_view, std::string_view>>> attributes(
    std::string_view message) {
    std::vector<std::pair<std::string_view, std::string_view>> out;
    size_t start = 0;
    while (start <= message.size()) {
        size_t comma = message.find(',', start);
        if (comma == std::string_view::npos) {
            comma = message.size();
        }
        auto part = message.substr(start, comma - start);
        auto eq = part.find('=');
        if (eq == std::string_view::npos || eq == 0) {
            return std::nullopt;
        }
        out.emplace_back(part.substr(0, eq), part.substr(eq + 1));
        start = comma + 1;
    }
    return out;
}

bool printable(std::string_view s) {
    for (char c : s) {
        if (c < 0x21 || c > 0x7e || c == ',') {
            return false;
        }
    }
    return !s.empty();
}

// saslname: "=2C" is ',' and "=3D" is '='; any other '=' is malformed.
std::optional<std::string> decode_saslname(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '=') {
            out += s[i];
        } else if (s.substr(i, 3) == "=2C") {
            out += ',';
            i += 2;
        } else if (s.substr(i, 3) == "=3D") {
            out += '=';
            i += 2;
        } else {
            return std::nullopt;
        }
    }
    if (out.empty()) {
        return std::nullopt;
    }
    return out;
}

std::string random_nonce() {
    uint8_t raw[24];
    RAND_bytes(raw, sizeof raw);
    return base64_encode({raw, sizeof raw});
}

bytes_view text(std::string_view s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

scram_server::scram_server(scram_mechanism mechanism, scram_lookup lookup,
                           std::optional<std::string> server_nonce, bool reauthentication)
    : _reauthentication(reauthentication),
      _mechanism(mechanism),
      _lookup(std::move(lookup)),
      _server_nonce(server_nonce ? std::move(*server_nonce) : random_nonce()) {}

error scram_server::failed() const {
    return error(error_code::sasl_authentication_failed,
                 std::string("Authentication failed during ") +
                     (_reauthentication ? "re-authentication" : "authentication") +
                     " due to invalid credentials with SASL mechanism " +
                     std::string(scram_mechanism_name(_mechanism)));
}

result<sasl_step> scram_server::evaluate(bytes_view client_token) {
    const std::string_view message = as_string_view(client_token);
    switch (_phase) {
        case phase::client_first: {
            _phase = phase::done;  // a failed step ends the exchange
            auto step = client_first(message);
            if (step) {
                _phase = phase::client_final;
            }
            return step;
        }
        case phase::client_final:
            _phase = phase::done;
            return client_final(message);
        case phase::done:
            break;
    }
    return error(error_code::illegal_sasl_state, "SCRAM exchange already finished");
}

result<sasl_step> scram_server::client_first(std::string_view message) {
    // gs2 header: "n," then an optional authzid, then ","
    if (message.substr(0, 2) != "n,") {
        return failed();  // channel binding ("p=", "y") is not served
    }
    auto comma = message.find(',', 2);
    if (comma == std::string_view::npos) {
        return failed();
    }
    std::string_view authzid = message.substr(2, comma - 2);
    if (!authzid.empty()) {
        if (authzid.substr(0, 2) != "a=") {
            return failed();
        }
        authzid.remove_prefix(2);
    }
    _client_first_bare = std::string(message.substr(comma + 1));
    auto attrs = attributes(_client_first_bare);
    if (!attrs || attrs->size() < 2 || (*attrs)[0].first != "n" || (*attrs)[1].first != "r") {
        return failed();
    }
    auto user = decode_saslname((*attrs)[0].second);
    if (!user || !printable((*attrs)[1].second)) {
        return failed();
    }
    for (size_t i = 2; i < attrs->size(); ++i) {
        // Extensions; tokenauth=true asks for a delegation token, not served.
        if ((*attrs)[i].first == "tokenauth" && (*attrs)[i].second == "true") {
            return failed();
        }
    }
    if (!authzid.empty()) {
        auto z = decode_saslname(authzid);
        if (!z || *z != *user) {
            return error(error_code::sasl_authentication_failed,
                         "Authentication failed: Client requested an authorization id that is "
                         "different from username");
        }
    }
    _user = std::move(*user);
    _credential = _lookup(_user);
    if (!_credential) {
        return failed();
    }
    _nonce = std::string((*attrs)[1].second) + _server_nonce;
    _server_first = "r=" + _nonce + ",s=" + base64_encode(_credential->salt) +
                    ",i=" + std::to_string(_credential->iterations);
    return sasl_step{bytes(_server_first.begin(), _server_first.end()), false, {}};
}

result<sasl_step> scram_server::client_final(std::string_view message) {
    auto proof_at = message.rfind(",p=");
    if (proof_at == std::string_view::npos) {
        return failed();
    }
    const std::string_view without_proof = message.substr(0, proof_at);
    auto attrs = attributes(without_proof);
    if (!attrs || attrs->size() < 2 || (*attrs)[0].first != "c" || (*attrs)[1].first != "r" ||
        !base64_decode((*attrs)[0].second)) {
        return failed();
    }
    // Kafka checks that the nonce ends with the server-first one, no more:
    // librdkafka (before 2.x's fix) sends its own nonce in front of it again.
    if (!(*attrs)[1].second.ends_with(_nonce)) {
        return failed();
    }
    auto proof = base64_decode(message.substr(proof_at + 3));
    const auto& c = *_credential;
    const std::string auth_message =
        _client_first_bare + "," + _server_first + "," + std::string(without_proof);
    // ClientKey = proof XOR HMAC(StoredKey, AuthMessage); H(ClientKey) must be StoredKey.
    bytes client_key = scram_hmac(_mechanism, c.stored_key, text(auth_message));
    if (!proof || proof->size() != client_key.size()) {
        return failed();
    }
    for (size_t i = 0; i < client_key.size(); ++i) {
        client_key[i] ^= (*proof)[i];
    }
    const bytes stored = scram_hash(_mechanism, client_key);
    if (stored.size() != c.stored_key.size() ||
        CRYPTO_memcmp(stored.data(), c.stored_key.data(), stored.size()) != 0) {
        return failed();
    }
    const std::string server_final =
        "v=" + base64_encode(scram_hmac(_mechanism, c.server_key, text(auth_message)));
    return sasl_step{bytes(server_final.begin(), server_final.end()), true, _user};
}

}  // namespace samsa::security::sasl
