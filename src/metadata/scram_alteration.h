#pragma once
// AlterUserScramCredentials on the controller (KIP-554, Kafka's
// ScramControlManager): each user's deletion becomes a
// RemoveUserScramCredentialRecord, each upsertion a UserScramCredentialRecord
// with the StoredKey and ServerKey derived from the salted password the client
// sent (the password itself never reaches the broker). Per user:
//
//   altered twice in one request     DUPLICATE_RESOURCE
//   empty name                       UNACCEPTABLE_CREDENTIAL
//   mechanism not SCRAM-SHA-256/512  UNSUPPORTED_SASL_MECHANISM
//   iterations < 4096 or > 16384     UNACCEPTABLE_CREDENTIAL
//   deleting a credential not held   RESOURCE_NOT_FOUND
//
// The results list the deletions, then the upsertions, then the failures.
#include "metadata/controller_plan.h"
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"

namespace samsa::metadata {

controller_plan<protocol::alter_user_scram_credentials_response> plan_alter_user_scram_credentials(
    const controller_state& state, const protocol::alter_user_scram_credentials_request& request);

}  // namespace samsa::metadata
