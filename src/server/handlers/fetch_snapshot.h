#pragma once
// FetchSnapshot (key 59): a KRaft RPC between the replicas of the metadata quorum,
// served on the controller listener (server/quorum/quorum_rpc.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler fetch_snapshot_handler();

}  // namespace samsa::server::handlers
