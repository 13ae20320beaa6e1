#pragma once
// jaas_config: the one login module of a sasl.jaas.config value, as Kafka's
// JaasConfig reads it:
//
//   org.apache.kafka.common.security.plain.PlainLoginModule required
//       username="admin" password="admin-secret" user_alice="alice-secret";
//
// A module class, a control flag (required, requisite, sufficient,
// optional), options as name=value (the value quoted, where a backslash
// escapes a quote or a backslash, or a bare word), and a closing ';'.
// Errors name what is wrong but never echo a value: the options hold
// passwords.
#include <map>
#include <string>
#include <string_view>

#include "common/result.h"

namespace samsa::security::sasl {

struct jaas_module {
    std::string login_module;
    std::string flag;
    std::map<std::string, std::string> options;
};

result<jaas_module> parse_jaas_config(std::string_view text);

}  // namespace samsa::security::sasl
