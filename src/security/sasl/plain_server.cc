#include "security/sasl/plain_server.h"

#include <openssl/crypto.h>

#include <string_view>

namespace samsa::security::sasl {

namespace {

error failed(std::string_view why) {
    return error(error_code::sasl_authentication_failed,
                 "Authentication failed: " + std::string(why));
}

// Equal strings, in time that does not depend on where they differ.
bool same_secret(std::string_view a, std::string_view b) {
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

result<sasl_step> plain_server::evaluate(bytes_view client_token) {
    if (_done) {
        return error(error_code::illegal_sasl_state, "PLAIN takes one token");
    }
    _done = true;
    std::string_view t = as_string_view(client_token);
    auto first = t.find('\0');
    auto second = first == std::string_view::npos ? first : t.find('\0', first + 1);
    if (second == std::string_view::npos || t.find('\0', second + 1) != std::string_view::npos) {
        return failed("Invalid SASL/PLAIN response: expected 3 tokens");
    }
    auto authzid = t.substr(0, first);
    auto user = t.substr(first + 1, second - first - 1);
    auto password = t.substr(second + 1);
    if (user.empty()) {
        return failed("username not specified");
    }
    if (password.empty()) {
        return failed("password not specified");
    }
    auto it = _users.find(std::string(user));
    // Compare even for an unknown user, so timing tells nothing of who exists.
    const std::string_view expected = it == _users.end() ? std::string_view() : it->second;
    if (!same_secret(password, expected) || it == _users.end()) {
        return failed("Invalid username or password");
    }
    if (!authzid.empty() && authzid != user) {
        return failed("Client requested an authorization id that is different from username");
    }
    return sasl_step{{}, true, std::string(user)};
}

}  // namespace samsa::security::sasl
