#pragma once
// prospective (KIP-996, pre-vote): a voter that wants an election asks the
// others first whether they would vote for it in epoch + 1, without changing
// its epoch or anyone's state. Only a replica that wins the pre-vote becomes a
// candidate and bumps the epoch, so a replica cut off from the quorum (which
// would lose every pre-vote: the others still hear from their leader) cannot
// force elections on it when it comes back.
//
// It keeps what it knew of the epoch (leader, vote): when it had a leader it
// keeps fetching from it, and a successful Fetch takes it back to follower
// (the leader was only unreachable for a while). A lost round, or one that
// times out, is retried after a random backoff.
#include <algorithm>
#include <optional>

#include "raft/raft_types.h"
#include "raft/vote_tally.h"

namespace samsa::raft {

class prospective_state {
  public:
    prospective_state(raft_epoch epoch, node_id leader, node_id voted, vote_tally tally,
                      raft_time round_deadline)
        : _epoch(epoch),
          _leader(leader),
          _voted(voted),
          _tally(std::move(tally)),
          _round_deadline(round_deadline) {}

    raft_epoch epoch() const { return _epoch; }
    // The leader of `epoch` it was following, or no_node.
    node_id leader() const { return _leader; }
    node_id voted() const { return _voted; }
    vote_tally& tally() { return _tally; }
    const vote_tally& tally() const { return _tally; }

    // When this round is given up (timeout, or the backoff after a loss).
    raft_time round_deadline() const { return _round_deadline; }
    void lost(raft_time retry_at) { _round_deadline = std::min(_round_deadline, retry_at); }
    void new_round(vote_tally tally, raft_time deadline) {
        _tally = std::move(tally);
        _round_deadline = deadline;
    }

  private:
    raft_epoch _epoch;
    node_id _leader;
    node_id _voted;
    vote_tally _tally;
    raft_time _round_deadline;
};

}  // namespace samsa::raft
