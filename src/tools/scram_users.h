#pragma once
// `samsa configs --entity-type users`: kafka-configs.sh for SCRAM credentials
// (KIP-554), through raw DescribeUserScramCredentials and
// AlterUserScramCredentials calls (librdkafka 2.0 has neither).
//
//   --describe [--entity-name alice]
//       SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=4096
//   --alter --entity-name alice
//       --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret]'
//       --delete-config SCRAM-SHA-512
//
// The password is salted and hashed here (PBKDF2 with a random 32-byte
// salt); only the salted password goes to the broker, as Kafka's admin client
// does. Users' quota keys go to tools/client_quotas.h.
#include <optional>
#include <string>
#include <vector>

#include "tools/client_options.h"

namespace samsa::tools {

int describe_scram_users(const client_options& opts, const std::optional<std::string>& user);
int alter_scram_users(const client_options& opts, const std::string& user,
                      const property_list& adds, const std::vector<std::string>& deletes);

}  // namespace samsa::tools
