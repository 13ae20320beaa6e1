#pragma once
// Fetch (key 1) on a controller listener (Kafka's ControllerApis): the
// metadata quorum's replication, a voter or observer fetching the Raft log of
// __cluster_metadata-0 (KIP-595). Data partitions are fetched on client
// listeners (handlers/fetch.h); a Fetch for anything but the metadata
// partition here is INVALID_REQUEST, as Kafka's Raft client answers it.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler controller_fetch_handler();

}  // namespace samsa::server::handlers
