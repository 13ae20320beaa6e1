#pragma once
// sasl_listener: what a SASL_PLAINTEXT or SASL_SSL listener accepts, from
// Kafka's keys (each also as listener.name.<listener>.<key>):
//
//   sasl.enabled.mechanisms                         PLAIN (SCRAM comes next)
//   listener.name.<l>.plain.sasl.jaas.config        PlainLoginModule with
//                                                   user_<name>="<password>"
//
// Read when the broker starts: a mechanism this broker does not serve, or a
// PLAIN listener without users, stops it with a message naming the key.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/config_set.h"
#include "common/result.h"
#include "security/sasl/sasl_server.h"

namespace samsa::security::sasl {

struct sasl_listener_config {
    std::string listener;                 // upper case
    std::vector<std::string> mechanisms;  // enabled, as configured
    std::map<std::string, std::string> plain_users;

    bool enabled(std::string_view mechanism) const;
    // A fresh exchange for an enabled mechanism.
    std::unique_ptr<sasl_server> new_server(std::string_view mechanism) const;
};

result<std::shared_ptr<const sasl_listener_config>> sasl_config_for(
    const config::config_set& values, const std::string& listener);

}  // namespace samsa::security::sasl
