#pragma once
// candidate: a voter that won a pre-vote, bumped the epoch and voted for itself
// (both persisted before any Vote goes out). A majority of granted votes makes
// it leader; an election that times out or is lost sends it back to
// prospective (after a random backoff when lost), so the next attempt needs a
// pre-vote again.
#include <algorithm>

#include "raft/raft_types.h"
#include "raft/vote_tally.h"

namespace samsa::raft {

class candidate_state {
  public:
    candidate_state(raft_epoch epoch, vote_tally tally, raft_time election_deadline)
        : _epoch(epoch), _tally(std::move(tally)), _election_deadline(election_deadline) {}

    raft_epoch epoch() const { return _epoch; }
    vote_tally& tally() { return _tally; }
    const vote_tally& tally() const { return _tally; }
    raft_time election_deadline() const { return _election_deadline; }
    void lost(raft_time retry_at) { _election_deadline = std::min(_election_deadline, retry_at); }

  private:
    raft_epoch _epoch;
    vote_tally _tally;
    raft_time _election_deadline;
};

}  // namespace samsa::raft
