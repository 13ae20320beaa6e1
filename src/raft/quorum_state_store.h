#pragma once
// The election state a replica persists before it acts on it (KIP-595): the
// epoch it is in, the leader it knows for that epoch, and the candidate it
// voted for. Raft's safety rests on it surviving restarts: a replica that
// forgot its vote could vote twice in one epoch, one that forgot its epoch
// could accept a deposed leader. So it is written, durably, before a vote is
// granted, before a new epoch is acknowledged, and before a candidate asks for
// votes (raft/quorum_state.h does that on every transition that changes it).
//
// Stores: file_quorum_state_store (the `quorum-state` file, Kafka's JSON
// format, raft/quorum_state_file.h) and memory_quorum_state_store (the
// simulation: "durable" across simulated crashes because it lives outside the
// node).
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "raft/raft_types.h"

namespace samsa::raft {

struct election_state {
    raft_epoch epoch{0};
    node_id leader = no_node;  // known leader of `epoch`
    node_id voted = no_node;   // candidate voted for in `epoch`
    std::vector<node_id> voters;
    std::string cluster_id;
    bool operator==(const election_state&) const = default;
};

class quorum_state_store {
  public:
    virtual ~quorum_state_store() = default;
    // nullopt when nothing was ever written (a fresh replica).
    virtual result<std::optional<election_state>> read() = 0;
    // Durable when it returns success.
    virtual status write(const election_state& state) = 0;
};

class memory_quorum_state_store final : public quorum_state_store {
  public:
    result<std::optional<election_state>> read() override { return _state; }
    status write(const election_state& state) override {
        _state = state;
        ++_writes;
        return {};
    }
    const std::optional<election_state>& state() const { return _state; }
    int writes() const { return _writes; }

  private:
    std::optional<election_state> _state;
    int _writes = 0;
};

}  // namespace samsa::raft
