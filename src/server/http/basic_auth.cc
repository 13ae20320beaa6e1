#include "server/http/basic_auth.h"

#include <openssl/crypto.h>

#include <cctype>

#include "metadata/metadata_image.h"
#include "security/sasl/scram.h"

namespace samsa::server::http {

namespace {

bool same_bytes(std::string_view a, std::string_view b) {
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bytes_view as_bytes(std::string_view s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string_view as_text(bytes_view b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

}  // namespace

std::optional<basic_credentials> parse_basic_authorization(std::string_view header) {
    constexpr std::string_view scheme = "Basic ";
    if (header.size() <= scheme.size()) {
        return std::nullopt;
    }
    // The scheme is case-insensitive (RFC 7235).
    for (size_t i = 0; i < scheme.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(header[i])) !=
            std::tolower(static_cast<unsigned char>(scheme[i]))) {
            return std::nullopt;
        }
    }
    auto decoded = security::sasl::base64_decode(header.substr(scheme.size()));
    if (!decoded) {
        return std::nullopt;
    }
    const std::string_view text = as_text(*decoded);
    const auto colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0) {
        return std::nullopt;
    }
    return basic_credentials{std::string(text.substr(0, colon)),
                             std::string(text.substr(colon + 1))};
}

bool password_matches(const metadata::metadata_image& image,
                      const std::map<std::string, std::string>& plain_users,
                      const basic_credentials& who) {
    bool matched = false;
    if (auto it = plain_users.find(who.user); it != plain_users.end()) {
        matched = same_bytes(it->second, who.password);
    }
    if (auto u = image.scram_credentials.find(who.user); u != image.scram_credentials.end()) {
        for (const auto& [mechanism, c] : u->second) {
            // StoredKey = H(HMAC(SaltedPassword, "Client Key")) (RFC 5802).
            const bytes salted = security::sasl::scram_salted_password(mechanism, who.password,
                                                                       c.salt, c.iterations);
            const bytes client_key =
                security::sasl::scram_hmac(mechanism, salted, as_bytes("Client Key"));
            const bytes stored = security::sasl::scram_hash(mechanism, client_key);
            matched = same_bytes(as_text(stored), as_text(c.stored_key)) || matched;
        }
    }
    return matched;
}

}  // namespace samsa::server::http
