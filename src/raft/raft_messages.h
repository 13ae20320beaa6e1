#pragma once
// The KRaft RPCs (KIP-595, KIP-630, KIP-996) as the core sees them, free of the
// network: the broker integration maps each to its Kafka wire message 1:1 (one
// topic `__cluster_metadata`, one partition 0), field by field as noted. Every
// request carries a correlation id the response echoes (the Kafka request
// header's correlation id): the core acts only on the answer to the request it
// has outstanding, so a duplicated or late response is ignored.
//
// Responses carry the responder's view of the current leader and epoch
// (`current_leader`), from which a replica learns of a newer epoch.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/bytes.h"
#include "common/error.h"
#include "raft/raft_log.h"
#include "raft/raft_types.h"

namespace samsa::raft {

// VoteRequest (api 52): candidate_epoch, candidate_id, last_offset_epoch,
// last_offset; pre_vote is VoteRequest v2's PreVote (KIP-996). A pre-vote asks
// "would you vote for me in candidate_epoch?" and changes no state anywhere.
struct vote_request {
    int32_t correlation_id = 0;
    raft_epoch candidate_epoch{0};
    node_id candidate_id = no_node;
    offset_and_epoch last_offset;  // the candidate's log end and last epoch
    bool pre_vote = false;
};
// VoteResponse: error_code, leader_id, leader_epoch, vote_granted.
struct vote_response {
    int32_t correlation_id = 0;
    error_code error = error_code::none;
    leader_and_epoch current_leader;
    bool vote_granted = false;
};

// BeginQuorumEpochRequest (api 53): leader_id, leader_epoch. The new leader
// tells the voters, so they need not wait for their election timeout to learn.
struct begin_quorum_epoch_request {
    int32_t correlation_id = 0;
    leader_and_epoch leader;
};
struct begin_quorum_epoch_response {
    int32_t correlation_id = 0;
    error_code error = error_code::none;
    leader_and_epoch current_leader;
};

// EndQuorumEpochRequest (api 54): leader_id, leader_epoch,
// preferred_successors (voters by descending log end: the most up to date
// should stand first).
struct end_quorum_epoch_request {
    int32_t correlation_id = 0;
    leader_and_epoch leader;
    std::vector<node_id> preferred_successors;
};
struct end_quorum_epoch_response {
    int32_t correlation_id = 0;
    error_code error = error_code::none;
    leader_and_epoch current_leader;
};

// FetchRequest (api 1, v13+): replica_state.replica_id, max_wait_ms, and for
// partition 0: current_leader_epoch, fetch_offset, last_fetched_epoch,
// partition_max_bytes. Followers and observers both fetch; only voters count
// toward the high watermark.
struct fetch_request {
    int32_t correlation_id = 0;
    node_id replica_id = no_node;
    raft_epoch current_leader_epoch{0};
    raft_offset fetch_offset{0};
    raft_epoch last_fetched_epoch{0};
    int32_t max_bytes = 0;
    raft_ms max_wait{0};
};
// FetchResponse partition data: error_code, high_watermark, log_start_offset,
// diverging_epoch (tag 0: epoch, end_offset), current_leader (tag 1),
// snapshot_id (tag 2: end_offset, epoch), records (each raft_batch one record
// batch v2).
struct fetch_response {
    int32_t correlation_id = 0;
    error_code error = error_code::none;
    leader_and_epoch current_leader;
    std::optional<raft_offset> high_watermark;  // nullopt: the leader has none yet (-1)
    raft_offset log_start_offset{0};
    // Set when (fetch_offset, last_fetched_epoch) is not on the leader's log:
    // the largest epoch <= last_fetched_epoch the leader has, and its end.
    std::optional<offset_and_epoch> diverging_epoch;
    // Set when fetch_offset is below the leader's log start: fetch this.
    std::optional<offset_and_epoch> snapshot_id;
    std::vector<raft_batch> records;
};

// FetchSnapshotRequest (api 59): replica_id, max_bytes, current_leader_epoch,
// snapshot_id, position.
struct fetch_snapshot_request {
    int32_t correlation_id = 0;
    node_id replica_id = no_node;
    raft_epoch current_leader_epoch{0};
    offset_and_epoch snapshot_id;
    int64_t position = 0;
    int32_t max_bytes = 0;
};
// FetchSnapshotResponse: error_code, snapshot_id, current_leader, size,
// position, unaligned_records (a chunk of the snapshot's bytes).
struct fetch_snapshot_response {
    int32_t correlation_id = 0;
    error_code error = error_code::none;
    leader_and_epoch current_leader;
    offset_and_epoch snapshot_id;
    int64_t size = 0;
    int64_t position = 0;
    bytes chunk;
};

using raft_message =
    std::variant<vote_request, vote_response, begin_quorum_epoch_request,
                 begin_quorum_epoch_response, end_quorum_epoch_request, end_quorum_epoch_response,
                 fetch_request, fetch_response, fetch_snapshot_request, fetch_snapshot_response>;

bool is_request(const raft_message& m);
// One line for traces: `Fetch{corr=4 replica=2 epoch=3 offset=17 last_epoch=3}`.
std::string describe(const raft_message& m);

}  // namespace samsa::raft
