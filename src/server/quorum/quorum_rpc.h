#pragma once
// Serving the KRaft RPCs that reach this node's controller listener: decode the
// peer's request, hand it to the metadata_quorum, await the node's answer and
// encode it in the request's version. A request for another cluster gets
// INCONSISTENT_CLUSTER_ID; a node that is not in the quorum's configuration
// (no metadata_quorum) answers BROKER_NOT_AVAILABLE.
#include <asio/awaitable.hpp>

#include "raft/raft_messages.h"
#include "server/handler.h"

namespace samsa::server::quorum {

class metadata_quorum;

// Any thread: the node's answer to `request`, resuming on the caller's executor.
// `request` is moved from. (A reference, not a value: GCC 12 destroys some
// temporaries of a co_await expression twice, so none is passed through one.)
asio::awaitable<raft::raft_message> ask_quorum(metadata_quorum& q, raft::raft_message& request);

// The handler body of Vote, BeginQuorumEpoch, EndQuorumEpoch and FetchSnapshot.
asio::awaitable<handler_result> serve_quorum_request(request_context& ctx);

}  // namespace samsa::server::quorum
