#include "server/handlers/fetch_snapshot.h"

#include "protocol/generated/fetch_snapshot_request.h"
#include "server/quorum/quorum_rpc.h"

namespace samsa::server::handlers {

api_handler fetch_snapshot_handler() {
    return {protocol::fetch_snapshot_request::api_key,
            protocol::fetch_snapshot_request::min_version,
            protocol::fetch_snapshot_request::max_version, &quorum::serve_quorum_request};
}

}  // namespace samsa::server::handlers
