#pragma once
// The named invariants the simulation checks after every step (and on every
// commit the state machines see). A violation is recorded once, with its name
// and what broke it; the run stops there and prints its seed.
//
//   single_leader_per_epoch          no two nodes lead the same epoch
//   epoch_monotonic                  a node's epoch never decreases, restarts
//                                    included (it is persisted)
//   high_watermark_monotonic         within one incarnation of a node
//   committed_entries_never_change   two nodes never commit different entries
//                                    at one offset
//   applied_is_prefix_of_committed   each state machine sees consecutive
//                                    offsets from its snapshot, all committed
//   leader_has_all_committed         a new leader's log (with its snapshot)
//                                    holds every entry committed before
//   vote_persisted_before_granted    a granted Vote leaves only after the vote
//                                    is in the voter's quorum-state
//   log_below_high_watermark_is_committed
//                                    what a node's log holds below its high
//                                    watermark is the committed log
//   node_never_fails                 no node stops (e.g. asked to truncate
//                                    below its high watermark)
//   liveness                         checked by the cluster at the end
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "raft/memory_raft_log.h"
#include "raft/raft_types.h"

namespace samsa::raft::sim {

// A committed entry's identity: its epoch and content.
uint64_t fingerprint(raft_epoch epoch, control_record_type control, const bytes& value);

class sim_invariants {
  public:
    const std::optional<std::string>& violation() const { return _violation; }
    void violate(std::string_view name, std::string detail);

    // A state machine was handed a committed entry / a snapshot (its entries'
    // fingerprints, offsets 0..n-1).
    void on_commit(node_id node, raft_offset offset, uint64_t fp);
    void on_snapshot(node_id node, const std::vector<uint64_t>& entries);
    // A node is (still) leader of `epoch`; its log and latest snapshot.
    void on_leader(node_id node, raft_epoch epoch, const memory_raft_log& log);
    void on_epoch(node_id node, raft_epoch epoch);
    void on_high_watermark(node_id node, int incarnation, std::optional<raft_offset> hw);
    // The node's log entries below its high watermark (each checked once per
    // incarnation: below the high watermark nothing may change).
    void check_log(node_id node, int incarnation, std::optional<raft_offset> hw,
                   const memory_raft_log& log);

    raft_offset committed_end() const { return raft_offset{int64_t(_committed.size())}; }
    const std::vector<uint64_t>& committed() const { return _committed; }

  private:
    std::optional<std::string> _violation;
    std::vector<uint64_t> _committed;  // dense: offsets 0.. as first committed anywhere
    std::map<raft_epoch, node_id> _leaders;
    std::map<node_id, raft_epoch> _epochs;
    std::map<std::pair<node_id, int>, raft_offset> _hws;
    std::map<std::pair<node_id, int>, raft_offset> _log_checked;
};

}  // namespace samsa::raft::sim
