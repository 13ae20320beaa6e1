#pragma once
// A deterministic simulation of a KRaft quorum: N voters and M observers, each
// a real raft_node over a memory_raft_log and a memory_quorum_state_store,
// driven by one seeded generator through a discrete-event loop (sim time in
// milliseconds; no threads, no clock). Two phases:
//
//  1. chaos: the network drops, duplicates, delays, reorders and partitions;
//     nodes crash (losing what they had not flushed, keeping quorum-state) and
//     restart; clients append at random times to whoever leads; state
//     machines snapshot and logs are truncated below the snapshots; leaders
//     resign.
//  2. liveness: every node up, the network perfect — except that half the
//     time a minority of the voters stays cut off. A marker entry is appended
//     through the leader and must be committed and applied on every connected
//     node before the phase ends.
//
// The invariants (raft/sim/sim_invariants.h) are checked after every step; the
// first violation ends the run. The same options and seed replay the same run.
#include <cstdint>
#include <optional>
#include <string>

#include "raft/raft_config.h"
#include "raft/raft_types.h"
#include "raft/sim/sim_network.h"

namespace samsa::raft::sim {

struct sim_options {
    uint64_t seed = 1;
    int voters = 3;
    int observers = 1;
    raft_ms chaos{10000};
    raft_ms liveness{15000};
    bool crashes = true;
    bool partitions = true;
    bool snapshots = true;
    bool resigns = true;
    sim_network_options network;
    // The nodes' timers (local id and voters are filled in per node); Kafka's
    // defaults unless a scenario shortens them to get more elections per run.
    raft_config timers;
    // Faults every [fault_min, fault_max] ms of the chaos phase; a crash picks
    // the leader this often.
    int64_t fault_min_ms = 200;
    int64_t fault_max_ms = 1500;
    double crash_leader = 0.5;
    bool verbose = false;  // trace every event on stderr
};

struct sim_stats {
    int64_t steps = 0;
    int64_t messages = 0;
    int64_t committed = 0;  // entries committed (the committed log's length)
    int32_t max_epoch = 0;
    int32_t crashes = 0;
    int32_t snapshots = 0;
    int64_t liveness_ms = -1;  // from the end of chaos to the marker applied everywhere
};

struct sim_result {
    std::optional<std::string> violation;
    sim_stats stats;
};

sim_result run_simulation(const sim_options& options);

}  // namespace samsa::raft::sim
