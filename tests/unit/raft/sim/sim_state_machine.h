#pragma once
// The simulation's state machine: the sequence of committed entries it was
// handed, as fingerprints (raft/sim/sim_invariants.h). Its snapshot is that
// sequence, encoded; loading one replaces the sequence. Every call is checked
// against the invariants as it happens.
#include <vector>

#include "raft/raft_listener.h"
#include "raft/sim/sim_invariants.h"

namespace samsa::raft::sim {

class sim_state_machine final : public raft_listener {
  public:
    sim_state_machine(node_id id, sim_invariants& invariants) : _id(id), _inv(invariants) {}

    void handle_commit(const raft_batch& batch) override;
    void handle_snapshot(const raft_snapshot& snapshot) override;
    void handle_leader_change(leader_and_epoch leader) override;

    raft_offset applied_end() const { return raft_offset{int64_t(_entries.size())}; }
    const std::vector<uint64_t>& entries() const { return _entries; }
    leader_and_epoch last_leader() const { return _leader; }
    bytes encode() const;

  private:
    node_id _id;
    sim_invariants& _inv;
    std::vector<uint64_t> _entries;  // offsets 0..applied_end()-1
    leader_and_epoch _leader;
    bool _loaded = false;
};

}  // namespace samsa::raft::sim
