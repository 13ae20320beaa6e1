#pragma once
// BeginQuorumEpoch (key 53): a KRaft RPC between the replicas of the metadata quorum,
// served on the controller listener (server/quorum/quorum_rpc.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler begin_quorum_epoch_handler();

}  // namespace samsa::server::handlers
