#pragma once
// sasl_listener: what a SASL_PLAINTEXT or SASL_SSL listener accepts, from
// Kafka's keys (each also as listener.name.<listener>.<key>):
//
//   sasl.enabled.mechanisms                         PLAIN, SCRAM-SHA-256,
//                                                   SCRAM-SHA-512
//   listener.name.<l>.plain.sasl.jaas.config        PlainLoginModule with
//                                                   user_<name>="<password>"
//   connections.max.reauth.ms                       a session's lifetime
//                                                   (KIP-368), also as
//                                                   listener.name.<l>.<mech>.connections.max.reauth.ms
//   listener.name.<l>.scram-sha-256.sasl.jaas.config  ScramLoginModule, if
//                                                   set (SCRAM users are
//                                                   metadata: UserScramCredentialRecord)
//
// Read when the broker starts: a mechanism this broker does not serve, or a
// PLAIN listener without users, stops it with a message naming the key.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/config_set.h"
#include "common/result.h"
#include "security/sasl/sasl_server.h"
#include "security/sasl/scram_server.h"

namespace samsa::security::sasl {

// The SCRAM credential of a user for a mechanism, if it has one.
using scram_users =
    std::function<std::optional<scram_credential>(scram_mechanism, const std::string& user)>;

struct sasl_listener_config {
    std::string listener;                 // upper case
    std::vector<std::string> mechanisms;  // enabled, as configured
    std::map<std::string, std::string> plain_users;
    // connections.max.reauth.ms by mechanism (0: sessions never expire).
    std::map<std::string, int64_t> max_reauth_ms;

    int64_t max_reauth_ms_of(std::string_view mechanism) const {
        auto it = max_reauth_ms.find(std::string(mechanism));
        return it == max_reauth_ms.end() ? 0 : it->second;
    }

    bool enabled(std::string_view mechanism) const;
    // A fresh exchange for an enabled mechanism; SCRAM looks its users up in
    // `scram_users` (the cluster metadata). A re-authentication (KIP-368)
    // says so in its failure messages.
    std::unique_ptr<sasl_server> new_server(std::string_view mechanism,
                                            const scram_users& scram_users,
                                            bool reauthentication = false) const;
};

result<std::shared_ptr<const sasl_listener_config>> sasl_config_for(
    const config::config_set& values, const std::string& listener);

}  // namespace samsa::security::sasl
