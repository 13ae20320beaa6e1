#pragma once
// What a replica refuses before any rule of the protocol sees a message. The
// quorum's RPCs are not authenticated: whatever reaches a controller listener
// is taken at its word, so a single hostile request must not be able to move a
// node to an epoch that cannot be followed (2^31 - 1: the next election would
// wrap to -2^31), make it vote for itself, or take orders from a node outside
// the voter set.
//
//  * Every epoch a message carries lies in [0, 2^31 - 1): the next epoch of
//    any epoch a node adopts is representable, so epochs never wrap
//    (INVALID_REQUEST; a Fetch's or FetchSnapshot's current epoch gets the
//    answer Kafka's leader gives any lower or higher epoch,
//    FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH). A BeginQuorumEpoch or
//    EndQuorumEpoch older than this node's epoch skips these checks: it is
//    answered FENCED_LEADER_EPOCH and changes nothing (raft_node::handle).
//  * Vote (Kafka's KafkaRaftClient.handleVoteRequest): the candidate is not
//    this node, its log end is not negative, and its last epoch is below the
//    epoch it stands in (INVALID_REQUEST).
//  * BeginQuorumEpoch, EndQuorumEpoch: the leader is not this node
//    (INVALID_REQUEST) and is a voter (INCONSISTENT_VOTER_SET).
//  * Fetch, FetchSnapshot: the replica is not this node (INVALID_REQUEST).
//
// A refused request is answered with the error; a refused response is
// dropped (it cannot be answered, and acting on it is what must not happen).
#include <optional>

#include "common/error.h"
#include "raft/raft_config.h"
#include "raft/raft_messages.h"

namespace samsa::raft {

struct refusal {
    error_code code = error_code::invalid_request;
    std::string reason;  // for the log
};

// Why `m`, received from `from`, must not reach the node; nullopt if it may.
std::optional<refusal> refuse(const raft_config& config, node_id from, const raft_message& m);

// The error answer to `request` (a request type), naming `current` as the
// leader the refusing node knows.
raft_message error_response(const raft_message& request, error_code code, leader_and_epoch current);

}  // namespace samsa::raft
