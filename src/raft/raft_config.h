#pragma once
// The quorum's configuration: who votes, and Kafka's timers for KRaft
// (`controller.quorum.*`, defaults as Kafka's). Voters are static
// (`controller.quorum.voters`); dynamic membership (KIP-853) is not here.
#include <algorithm>
#include <string>
#include <vector>

#include "raft/raft_types.h"

namespace samsa::raft {

struct raft_config {
    node_id local_id = no_node;  // an observer when not among voters
    std::vector<node_id> voters;
    std::string cluster_id;

    // controller.quorum.election.timeout.ms: a voter without a leader starts an
    // election after a random time in [timeout, 2 * timeout).
    raft_ms election_timeout{1000};
    // controller.quorum.fetch.timeout.ms: a follower that has not fetched
    // successfully for this long starts an election (observers look for the
    // leader elsewhere); the leader resigns when a majority has not fetched for
    // 1.5x this ("check quorum").
    raft_ms fetch_timeout{2000};
    // controller.quorum.election.backoff.max.ms: the longest random wait after
    // a lost election before the next one.
    raft_ms election_backoff_max{1000};
    // controller.quorum.request.timeout.ms: a request with no answer after this
    // long is taken as lost, and retried.
    raft_ms request_timeout{2000};
    // controller.quorum.retry.backoff.ms: the wait before retrying a request
    // that failed (an error answer, or no known leader to ask).
    raft_ms retry_backoff{20};
    // controller.quorum.append.linger.ms: how long the leader lets appends
    // gather before it flushes them (a flush covers all of them).
    raft_ms append_linger{25};
    // The longest a leader holds a Fetch that has nothing to return (Kafka's
    // KRaft fetch max wait, 500 ms).
    raft_ms fetch_max_wait{500};
    int32_t fetch_max_bytes = 8 * 1024 * 1024;
    int32_t fetch_snapshot_max_bytes = 1024 * 1024;
    // How often the leader re-sends BeginQuorumEpoch to voters that have not
    // fetched in its epoch yet.
    raft_ms begin_quorum_epoch_retry{500};

    // KIP-996 pre-vote (VoteRequest v2's PreVote on the wire): a voter whose
    // election timer fires first asks whether it could win, without bumping
    // the epoch, so a voter cut off from the quorum does not depose its
    // leader when it comes back. Off: it stands as candidate at once
    // (KIP-595 as first shipped; the unit tests of that path turn it off).
    bool pre_vote = true;

    bool is_voter(node_id id) const {
        return std::find(voters.begin(), voters.end(), id) != voters.end();
    }
    bool local_is_voter() const { return is_voter(local_id); }
    size_t majority() const { return voters.size() / 2 + 1; }
};

}  // namespace samsa::raft
