#include "server/handlers/begin_quorum_epoch.h"

#include "protocol/generated/begin_quorum_epoch_request.h"
#include "server/quorum/quorum_rpc.h"

namespace samsa::server::handlers {

api_handler begin_quorum_epoch_handler() {
    return {protocol::begin_quorum_epoch_request::api_key,
            protocol::begin_quorum_epoch_request::min_version,
            protocol::begin_quorum_epoch_request::max_version, &quorum::serve_quorum_request};
}

}  // namespace samsa::server::handlers
