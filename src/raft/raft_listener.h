#pragma once
// raft_listener: the state machine fed by the Raft log (Kafka's
// RaftClient.Listener); for the broker, the metadata image replayer and the
// controller. Called on the thread that drives the raft_node, from inside its
// handle()/poll()/start() calls; it may call back into the node (append,
// create_snapshot, high_watermark) but must not block.
//
// Contract: after handle_snapshot(s), the batches handed to handle_commit
// continue at s.id.offset; every committed offset is handed over once per
// node incarnation, in order and whole batches at a time (one controller
// change is one batch), control batches included (a state machine skips
// them). A restarted node starts again from its latest snapshot, or from the
// log start.
#include "raft/raft_log.h"
#include "raft/raft_types.h"

namespace samsa::raft {

class raft_listener {
  public:
    virtual ~raft_listener() = default;

    // A batch below the high watermark: committed, it will never change.
    virtual void handle_commit(const raft_batch& batch) = 0;
    // After one or more handle_commit calls in a row (what was committed and
    // is in the log right now), before commit waiters hear of them and before
    // a leader change is told: a state machine may apply a run of batches
    // and publish its state once (Kafka's listener gets them as one batch
    // reader), instead of once per batch.
    virtual void end_of_commits() {}
    // Replace the state with this snapshot's (start-up, or a follower that
    // fell behind the leader's log start and fetched the leader's snapshot).
    virtual void handle_snapshot(const raft_snapshot& snapshot) = 0;
    // The leader changed (no_node: not known in this epoch). For this replica
    // becoming leader it comes only once every batch committed before its
    // epoch has been handed to handle_commit, so the state machine is
    // complete when it starts acting as the leader's (Kafka does the same).
    virtual void handle_leader_change(leader_and_epoch leader) = 0;
};

}  // namespace samsa::raft
