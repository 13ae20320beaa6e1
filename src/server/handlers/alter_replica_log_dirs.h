#pragma once
// AlterReplicaLogDirs (key 34, v0-2; KIP-113): moves replicas of this broker
// between its log dirs (docs/log-dir-moves.md). CLUSTER ALTER.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler alter_replica_log_dirs_handler();

}  // namespace samsa::server::handlers
