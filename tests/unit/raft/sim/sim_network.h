#pragma once
// The simulation's network: every message becomes an envelope delivered after a
// random delay, in delivery-time order — so messages reorder. Faults, each
// drawn from the run's seeded generator: loss, duplication (the copy takes
// its own delay), occasional slow messages (long delays: late answers to old
// requests) and partitions (nodes in different groups cannot talk; checked
// when sent and again when delivered). A message to a node that crashed since
// it was sent is lost with its connection (`to_incarnation`).
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "raft/raft_messages.h"
#include "raft/raft_types.h"

namespace samsa::raft::sim {

struct sim_network_options {
    double drop = 0.03;
    double duplicate = 0.02;
    int64_t min_delay_ms = 1;
    int64_t max_delay_ms = 20;
    double slow = 0.01;  // of the messages kept, how many take up to slow_max_delay_ms
    int64_t slow_max_delay_ms = 600;
};

struct envelope {
    raft_time at;
    uint64_t seq = 0;
    node_id from = no_node;
    node_id to = no_node;
    int to_incarnation = 0;
    raft_message message;
};

class sim_network {
  public:
    sim_network(std::mt19937_64& rng, sim_network_options options, size_t nodes)
        : _rng(rng), _options(options), _group(nodes, 0) {}

    void send(raft_time now, node_id from, node_id to, raft_message m, int to_incarnation) {
        ++_sent;
        if (!connected(from, to) || (_faults && chance(_options.drop))) {
            ++_dropped;
            return;
        }
        int copies = _faults && chance(_options.duplicate) ? 2 : 1;
        for (int i = 0; i < copies; ++i) {
            envelope e{now + raft_ms{delay()},           _seq++, from, to, to_incarnation,
                       i + 1 < copies ? m : std::move(m)};
            _queue.push_back(std::move(e));
            std::push_heap(_queue.begin(), _queue.end(), later);
        }
    }

    bool empty() const { return _queue.empty(); }
    raft_time next_time() const { return _queue.empty() ? raft_time::max() : _queue.front().at; }
    envelope pop() {
        std::pop_heap(_queue.begin(), _queue.end(), later);
        envelope e = std::move(_queue.back());
        _queue.pop_back();
        return e;
    }

    // groups[i]: the side of node i + 1; same side, connected.
    void partition(std::vector<int> groups) { _group = std::move(groups); }
    void heal() { std::fill(_group.begin(), _group.end(), 0); }
    bool connected(node_id a, node_id b) const {
        return _group[size_t(a.value() - 1)] == _group[size_t(b.value() - 1)];
    }
    // Off for the liveness phase: a perfect network.
    void set_faults(bool on) { _faults = on; }

    int64_t sent() const { return _sent; }
    int64_t dropped() const { return _dropped; }

  private:
    static bool later(const envelope& a, const envelope& b) {
        return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
    // Not std::*_distribution: their output differs between standard
    // libraries, and a seed should replay the same run everywhere.
    bool chance(double p) { return double(_rng() >> 11) * 0x1.0p-53 < p; }
    int64_t uniform(int64_t lo, int64_t hi) { return lo + int64_t(_rng() % uint64_t(hi - lo + 1)); }
    int64_t delay() {
        if (_faults && chance(_options.slow)) {
            return uniform(_options.max_delay_ms, _options.slow_max_delay_ms);
        }
        return uniform(_options.min_delay_ms, _options.max_delay_ms);
    }

    std::mt19937_64& _rng;
    sim_network_options _options;
    std::vector<int> _group;
    std::vector<envelope> _queue;  // a heap on (at, seq)
    uint64_t _seq = 0;
    bool _faults = true;
    int64_t _sent = 0;
    int64_t _dropped = 0;
};

}  // namespace samsa::raft::sim
