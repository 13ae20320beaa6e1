#include "server/handlers/vote.h"

#include "protocol/generated/vote_request.h"
#include "server/quorum/quorum_rpc.h"

namespace samsa::server::handlers {

api_handler vote_handler() {
    return {protocol::vote_request::api_key, protocol::vote_request::min_version,
            protocol::vote_request::max_version, &quorum::serve_quorum_request};
}

}  // namespace samsa::server::handlers
