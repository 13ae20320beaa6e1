#pragma once
// voted: the replica granted its (persisted) vote to a candidate in this epoch
// and may not vote for another one in it; it would grant the same candidate
// again (a retried Vote). It waits for the leader of the epoch like an
// unattached voter, and after the election timeout becomes prospective.
#include "raft/raft_types.h"

namespace samsa::raft {

class voted_state {
  public:
    voted_state(raft_epoch epoch, node_id voted_for, raft_time election_deadline)
        : _epoch(epoch), _voted_for(voted_for), _election_deadline(election_deadline) {}

    raft_epoch epoch() const { return _epoch; }
    node_id voted_for() const { return _voted_for; }
    raft_time election_deadline() const { return _election_deadline; }
    bool election_timed_out(raft_time now) const { return now >= _election_deadline; }

  private:
    raft_epoch _epoch;
    node_id _voted_for;
    raft_time _election_deadline;
};

}  // namespace samsa::raft
