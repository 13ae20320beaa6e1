#include "security/sasl/scram.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cassert>

namespace samsa::security::sasl {

namespace {

const EVP_MD* digest(scram_mechanism m) {
    assert(m != scram_mechanism::unknown);
    return m == scram_mechanism::sha512 ? EVP_sha512() : EVP_sha256();
}

bytes_view text(std::string_view s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

scram_mechanism scram_mechanism_named(std::string_view name) {
    if (name == "SCRAM-SHA-256") {
        return scram_mechanism::sha256;
    }
    if (name == "SCRAM-SHA-512") {
        return scram_mechanism::sha512;
    }
    return scram_mechanism::unknown;
}

std::string_view scram_mechanism_name(scram_mechanism m) {
    switch (m) {
        case scram_mechanism::sha256:
            return "SCRAM-SHA-256";
        case scram_mechanism::sha512:
            return "SCRAM-SHA-512";
        case scram_mechanism::unknown:
            break;
    }
    return "UNKNOWN";
}

bytes scram_hash(scram_mechanism m, bytes_view data) {
    bytes out(EVP_MAX_MD_SIZE);
    unsigned int n = 0;
    EVP_Digest(data.data(), data.size(), out.data(), &n, digest(m), nullptr);
    out.resize(n);
    return out;
}

bytes scram_hmac(scram_mechanism m, bytes_view key, bytes_view data) {
    bytes out(EVP_MAX_MD_SIZE);
    unsigned int n = 0;
    HMAC(digest(m), key.data(), int(key.size()), data.data(), data.size(), out.data(), &n);
    out.resize(n);
    return out;
}

bytes scram_salted_password(scram_mechanism m, std::string_view password, bytes_view salt,
                            int32_t iterations) {
    bytes out(size_t(EVP_MD_get_size(digest(m))));
    PKCS5_PBKDF2_HMAC(password.data(), int(password.size()), salt.data(), int(salt.size()),
                      iterations, digest(m), int(out.size()), out.data());
    return out;
}

scram_credential scram_credential_from_salted(scram_mechanism m, bytes salt,
                                              bytes_view salted_password, int32_t iterations) {
    scram_credential c;
    c.salt = std::move(salt);
    c.stored_key = scram_hash(m, scram_hmac(m, salted_password, text("Client Key")));
    c.server_key = scram_hmac(m, salted_password, text("Server Key"));
    c.iterations = iterations;
    return c;
}

std::string base64_encode(bytes_view data) {
    std::string out(4 * ((data.size() + 2) / 3), '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data.data(),
                                  int(data.size()));
    out.resize(size_t(n));
    return out;
}

std::optional<bytes> scram_random_salt() {
    bytes salt(32);
    if (RAND_bytes(salt.data(), int(salt.size())) != 1) {
        return std::nullopt;
    }
    return salt;
}

std::optional<bytes> base64_decode(std::string_view text_in) {
    if (text_in.size() % 4 != 0) {
        return std::nullopt;
    }
    for (size_t i = 0; i < text_in.size(); ++i) {
        const char c = text_in[i];
        const bool alnum =
            (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        const bool pad = c == '=' && i + 2 >= text_in.size() &&
                         (i + 1 == text_in.size() || text_in[i + 1] == '=');
        if (!alnum && c != '+' && c != '/' && !pad) {
            return std::nullopt;
        }
    }
    bytes out(text_in.size() / 4 * 3);
    const int n = EVP_DecodeBlock(
        out.data(), reinterpret_cast<const unsigned char*>(text_in.data()), int(text_in.size()));
    if (n < 0) {
        return std::nullopt;
    }
    // EVP_DecodeBlock keeps the bytes the padding stands for.
    size_t padding = 0;
    for (size_t i = text_in.size(); i > 0 && text_in[i - 1] == '='; --i) {
        ++padding;
    }
    out.resize(size_t(n) - padding);
    return out;
}

}  // namespace samsa::security::sasl
