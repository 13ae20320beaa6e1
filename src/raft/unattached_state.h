#pragma once
// unattached: the replica knows an epoch but neither its leader nor a vote of
// its own in it (a fresh replica; or one that saw a higher epoch in a request
// or response). A voter waits a randomized election timeout for a leader to
// show up (BeginQuorumEpoch, or a Vote that it grants) and then becomes
// prospective; an observer keeps asking random voters who leads (Fetch).
#include "raft/raft_types.h"

namespace samsa::raft {

class unattached_state {
  public:
    unattached_state(raft_epoch epoch, raft_time election_deadline)
        : _epoch(epoch), _election_deadline(election_deadline) {}

    raft_epoch epoch() const { return _epoch; }
    raft_time election_deadline() const { return _election_deadline; }
    bool election_timed_out(raft_time now) const { return now >= _election_deadline; }

  private:
    raft_epoch _epoch;
    raft_time _election_deadline;
};

}  // namespace samsa::raft
