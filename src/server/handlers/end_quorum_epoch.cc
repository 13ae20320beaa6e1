#include "server/handlers/end_quorum_epoch.h"

#include "protocol/generated/end_quorum_epoch_request.h"
#include "server/quorum/quorum_rpc.h"

namespace samsa::server::handlers {

api_handler end_quorum_epoch_handler() {
    return {protocol::end_quorum_epoch_request::api_key,
            protocol::end_quorum_epoch_request::min_version,
            protocol::end_quorum_epoch_request::max_version, &quorum::serve_quorum_request};
}

}  // namespace samsa::server::handlers
