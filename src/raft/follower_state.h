#pragma once
// follower: the replica knows the leader of its epoch and fetches from it
// (pull-based replication, KIP-595). Each successful Fetch pushes the fetch
// deadline back; a voter that reaches it (no word from the leader for
// controller.quorum.fetch.timeout.ms) becomes prospective, an observer goes
// back to looking for the leader. EndQuorumEpoch from the leader brings the
// deadline forward. A follower behind the leader's log start transfers the
// leader's snapshot (FetchSnapshot) before it fetches again.
#include <algorithm>
#include <optional>

#include "common/bytes.h"
#include "raft/raft_types.h"

namespace samsa::raft {

struct snapshot_transfer {
    offset_and_epoch id;
    bytes data;  // the chunks received so far
};

class follower_state {
  public:
    follower_state(raft_epoch epoch, node_id leader, raft_time fetch_deadline)
        : _epoch(epoch), _leader(leader), _fetch_deadline(fetch_deadline) {}

    raft_epoch epoch() const { return _epoch; }
    node_id leader() const { return _leader; }

    raft_time fetch_deadline() const { return _fetch_deadline; }
    bool fetch_timed_out(raft_time now) const { return now >= _fetch_deadline; }
    // A Fetch (or FetchSnapshot) answered by the leader without error.
    void fetched(raft_time now, raft_ms fetch_timeout) {
        _has_fetched = true;
        _fetch_deadline = now + fetch_timeout;
    }
    // KIP-996: a follower that has heard from its leader in this epoch refuses
    // pre-votes (the leader is alive); until then it may grant them.
    bool has_fetched_from_leader() const { return _has_fetched; }
    void hurry_election(raft_time at) { _fetch_deadline = std::min(_fetch_deadline, at); }
    // The leader said it gave up the epoch (EndQuorumEpoch, or a Fetch refused
    // as not the leader): pre-votes may be granted again.
    void leader_resigned() { _has_fetched = false; }

    std::optional<snapshot_transfer>& snapshot() { return _snapshot; }

  private:
    raft_epoch _epoch;
    node_id _leader;
    raft_time _fetch_deadline;
    bool _has_fetched = false;
    std::optional<snapshot_transfer> _snapshot;
};

}  // namespace samsa::raft
