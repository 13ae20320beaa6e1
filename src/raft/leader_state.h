#pragma once
// leader: won the election of its epoch. It starts the epoch with a
// LeaderChange control record at epoch_start_offset (the log end when it won),
// tells the voters with BeginQuorumEpoch, and serves Fetch.
//
// The high watermark (commit rule, KIP-595): the largest offset that a
// majority of voters have reached — the leader by its durable (flushed) end
// offset, each other voter by the fetch offset of its latest valid Fetch in
// this epoch — provided it is above epoch_start_offset, so that an entry of
// this epoch (at least the LeaderChange record) is committed: entries of
// earlier epochs are committed only with it (Raft §5.4.2). It never moves back.
// Observers fetch too and never count.
//
// Check quorum: when a majority of voters (the leader included) has not
// fetched within 1.5 x fetch timeout, the leader resigns: it may be cut off,
// and a leader that cannot commit should let clients find another.
#include <map>
#include <optional>
#include <vector>

#include "raft/raft_types.h"

namespace samsa::raft {

struct replica_progress {
    node_id id = no_node;
    std::optional<raft_offset> end_offset;  // fetch offset of its latest valid Fetch
    std::optional<raft_time> last_fetch;
    std::optional<raft_time> last_caught_up;  // fetched at or past our end offset then
    bool acknowledged = false;                // fetched, or answered BeginQuorumEpoch
};

class leader_state {
  public:
    leader_state(raft_epoch epoch, node_id self, const std::vector<node_id>& voters,
                 raft_offset epoch_start_offset, std::vector<node_id> granting_voters,
                 raft_time now);

    raft_epoch epoch() const { return _epoch; }
    raft_offset epoch_start_offset() const { return _epoch_start_offset; }
    const std::vector<node_id>& granting_voters() const { return _granting; }
    // Established once an offset past epoch_start_offset is committed.
    std::optional<raft_offset> high_watermark() const { return _high_watermark; }

    // The leader's own durable end offset. True when the high watermark moved.
    bool update_local(raft_offset durable_end, raft_time now);
    // A valid Fetch at `fetch_offset` from `id` (voter or observer), while the
    // leader's log ends at `leader_end`. True when the high watermark moved.
    bool update_replica(node_id id, raft_offset fetch_offset, raft_offset leader_end,
                        raft_time now);
    // A replica showed it is alive (a Fetch we answered with a diverging epoch
    // or a snapshot id, a FetchSnapshot) without a usable offset.
    void touch(node_id id, raft_time now);
    void acknowledge(node_id voter);
    // Voters to (re)send BeginQuorumEpoch to: those that have not acknowledged
    // this epoch, and those that have not fetched for `fetch_timeout`. The
    // latter may have moved to a higher epoch (a lost election while cut off:
    // pre-vote keeps it from winning, and nothing else would tell it of us);
    // its answer, FENCED_LEADER_EPOCH with that epoch, makes this leader step
    // down so that one election brings everyone to one epoch again.
    std::vector<node_id> voters_to_remind(raft_time now, raft_ms fetch_timeout) const;
    raft_time next_begin_quorum_epoch() const { return _next_begin; }
    void sent_begin_quorum_epoch(raft_time next) { _next_begin = next; }

    // When check quorum would resign, given that the timeout is `timeout`.
    raft_time check_quorum_deadline(raft_ms timeout) const;

    // Voters other than the leader, most up to date first (EndQuorumEpoch).
    std::vector<node_id> preferred_successors() const;
    const std::map<node_id, replica_progress>& voters() const { return _voters; }
    const std::map<node_id, replica_progress>& observers() const { return _observers; }

  private:
    bool maybe_advance_high_watermark();

    raft_epoch _epoch;
    node_id _self;
    raft_offset _epoch_start_offset;
    std::vector<node_id> _granting;
    raft_time _elected_at;
    std::map<node_id, replica_progress> _voters;
    std::map<node_id, replica_progress> _observers;
    std::optional<raft_offset> _high_watermark;
    raft_time _next_begin{};
};

}  // namespace samsa::raft
