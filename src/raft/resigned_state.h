#pragma once
// resigned: a leader that gave up its epoch, at shutdown or because a majority
// stopped fetching from it (check quorum). It appends nothing more, tells the
// voters with EndQuorumEpoch (naming its preferred successors, the most up to
// date first) so they start an election at once instead of after their fetch
// timeout, and itself becomes prospective after an election timeout.
#include <set>
#include <vector>

#include "raft/raft_types.h"

namespace samsa::raft {

class resigned_state {
  public:
    resigned_state(raft_epoch epoch, std::vector<node_id> preferred_successors,
                   std::set<node_id> unacknowledged, raft_time election_deadline)
        : _epoch(epoch),
          _successors(std::move(preferred_successors)),
          _unacknowledged(std::move(unacknowledged)),
          _election_deadline(election_deadline) {}

    raft_epoch epoch() const { return _epoch; }
    const std::vector<node_id>& preferred_successors() const { return _successors; }
    // Voters that have not answered EndQuorumEpoch yet.
    const std::set<node_id>& unacknowledged() const { return _unacknowledged; }
    void acknowledge(node_id voter) { _unacknowledged.erase(voter); }
    raft_time election_deadline() const { return _election_deadline; }
    raft_time next_end_quorum_epoch() const { return _next_send; }
    void sent_end_quorum_epoch(raft_time next) { _next_send = next; }

  private:
    raft_epoch _epoch;
    std::vector<node_id> _successors;
    std::set<node_id> _unacknowledged;
    raft_time _election_deadline;
    raft_time _next_send{};
};

}  // namespace samsa::raft
