#pragma once
// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677; KIP-84): the
// mechanisms, their ids on the wire (AlterUserScramCredentials,
// UserScramCredentialRecord), and the key derivation both the controller and
// the SASL exchange use. A broker stores only salt, StoredKey, ServerKey and
// the iteration count, never the password:
//
//   SaltedPassword = PBKDF2-HMAC-H(password, salt, iterations)
//   ClientKey      = HMAC(SaltedPassword, "Client Key")
//   StoredKey      = H(ClientKey)
//   ServerKey      = HMAC(SaltedPassword, "Server Key")
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/bytes.h"

namespace samsa::security::sasl {

// Kafka's org.apache.kafka.clients.admin.ScramMechanism type ids.
enum class scram_mechanism : int8_t { unknown = 0, sha256 = 1, sha512 = 2 };

// "SCRAM-SHA-256" -> sha256; unknown for any other name.
scram_mechanism scram_mechanism_named(std::string_view name);
std::string_view scram_mechanism_name(scram_mechanism m);

// Kafka's bounds on the iteration count (ScramMechanism.minIterations and
// the controller's MAX_ITERATIONS).
inline constexpr int32_t scram_min_iterations = 4096;
inline constexpr int32_t scram_max_iterations = 16384;

struct scram_credential {
    bytes salt;
    bytes stored_key;
    bytes server_key;
    int32_t iterations = 0;
    bool operator==(const scram_credential&) const = default;
};

// The mechanism's hash over `data`, and HMAC with `key`. `m` must be known.
bytes scram_hash(scram_mechanism m, bytes_view data);
bytes scram_hmac(scram_mechanism m, bytes_view key, bytes_view data);
bytes scram_salted_password(scram_mechanism m, std::string_view password, bytes_view salt,
                            int32_t iterations);

// A fresh random salt (32 bytes) for a new credential; nullopt if the
// system's random source fails.
std::optional<bytes> scram_random_salt();

// What the controller records for an upsertion (it receives SaltedPassword).
scram_credential scram_credential_from_salted(scram_mechanism m, bytes salt,
                                              bytes_view salted_password, int32_t iterations);

// Standard base64 with padding, as SCRAM messages carry binary values.
std::string base64_encode(bytes_view data);
std::optional<bytes> base64_decode(std::string_view text);

}  // namespace samsa::security::sasl
