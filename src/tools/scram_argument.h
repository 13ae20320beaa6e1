#pragma once
// One `samsa storage format --add-scram` argument, as kafka-storage.sh takes
// it (KIP-554's bootstrap users), into the UserScramCredentialRecord a fresh
// cluster starts with:
//
//   SCRAM-SHA-256=[name=alice,password=alice-secret]
//   SCRAM-SHA-512=[name=bob,iterations=8192,salt="MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=",
//                  saltedpassword="mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE="]
//
// name and one of password or (saltedpassword and salt) are required; salt and
// saltedpassword are base64; iterations defaults to 4096 and must lie within
// [4096, 16384]; a random salt is drawn when none is given. Errors carry
// Kafka's messages.
#include <string>

#include "common/result.h"
#include "protocol/generated/user_scram_credential_record.h"

namespace samsa::tools {

result<protocol::user_scram_credential_record> parse_scram_argument(const std::string& argument);

}  // namespace samsa::tools
