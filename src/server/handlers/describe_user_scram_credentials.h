#pragma once
// DescribeUserScramCredentials (key 50, v0): each user's SCRAM mechanisms and
// iteration counts, from this broker's metadata image (KIP-554). Null or no
// users: every user with a credential. A user named twice is
// DUPLICATE_RESOURCE, one without a credential RESOURCE_NOT_FOUND, each with
// Kafka's message naming the user.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_user_scram_credentials_handler();

}  // namespace samsa::server::handlers
