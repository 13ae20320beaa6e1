#pragma once
// AlterUserScramCredentials (key 51, v0): adds, replaces and deletes users'
// SCRAM credentials through the controller (metadata/scram_alteration.h,
// KIP-554).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler alter_user_scram_credentials_handler();

}  // namespace samsa::server::handlers
