#pragma once
// Vote (key 52): a KRaft RPC between the replicas of the metadata quorum,
// served on the controller listener (server/quorum/quorum_rpc.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler vote_handler();

}  // namespace samsa::server::handlers
