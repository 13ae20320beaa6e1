#include "raft/sim/sim_cluster.h"

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "raft/memory_raft_log.h"
#include "raft/quorum_state_store.h"
#include "raft/raft_node.h"
#include "raft/sim/sim_invariants.h"
#include "raft/sim/sim_state_machine.h"

namespace samsa::raft::sim {

namespace {

class cluster;

class sim_transport final : public raft_transport {
  public:
    sim_transport(cluster& c, node_id self) : _cluster(c), _self(self) {}
    void send(node_id to, raft_message m) override;

  private:
    cluster& _cluster;
    node_id _self;
};

// One replica: what survives a crash (log, quorum-state) and what does not.
struct sim_node {
    node_id id;
    memory_raft_log log;
    memory_quorum_state_store store;
    int incarnation = 0;
    std::unique_ptr<sim_state_machine> state_machine;
    std::unique_ptr<seeded_random> random;
    std::unique_ptr<sim_transport> transport;
    std::unique_ptr<raft_node> node;  // null while down
    raft_time next_poll = raft_time::max();
    std::optional<raft_time> restart_at;
};

class cluster {
  public:
    explicit cluster(const sim_options& o) : _o(o), _rng(o.seed), _net(_rng, o.network, size()) {
        for (int i = 0; i < o.voters; ++i) {
            _config_voters.push_back(node_id{i + 1});
        }
        for (size_t i = 0; i < size(); ++i) {
            auto n = std::make_unique<sim_node>();
            n->id = node_id{int32_t(i + 1)};
            _nodes.push_back(std::move(n));
        }
    }

    sim_result run();
    void on_send(node_id from, node_id to, raft_message m);

  private:
    size_t size() const { return size_t(_o.voters + _o.observers); }
    bool chance(double p) { return double(_rng() >> 11) * 0x1.0p-53 < p; }
    int64_t uniform(int64_t lo, int64_t hi) { return lo + int64_t(_rng() % uint64_t(hi - lo + 1)); }
    template <typename... Args>
    void trace(fmt::format_string<Args...> f, Args&&... args) {
        if (_o.verbose) {
            std::fprintf(stderr, "t=%lld %s\n", static_cast<long long>(_now.ms()),
                         fmt::format(f, std::forward<Args>(args)...).c_str());
        }
    }

    void boot(sim_node& n);
    void crash(sim_node& n);
    void poll(sim_node& n);
    void deliver(envelope e);
    void client_append();
    void fault();
    void snapshot();
    void resign();
    void heal_all();
    void liveness_step();
    void check();
    sim_node* leader();
    std::string describe_nodes() const;

    sim_options _o;
    std::mt19937_64 _rng;
    sim_network _net;
    sim_invariants _inv;
    std::vector<node_id> _config_voters;
    std::vector<std::unique_ptr<sim_node>> _nodes;
    raft_time _now{};
    sim_stats _stats;
    int64_t _payload = 0;
    // Vote requests in flight: (candidate, voter, correlation id) -> pre-vote.
    std::map<std::tuple<node_id, node_id, int32_t>, bool> _votes;

    raft_time _next_client{}, _next_fault{}, _next_snapshot{}, _next_resign{};
    bool _healed = false;
    raft_time _next_marker_try{};
    std::optional<raft_offset> _marker;  // appended, waiting for its commit
    bool _marker_committed = false;
    std::optional<raft_time> _marker_done;
    std::vector<bool> _isolated;  // cut off for the liveness phase
};

void sim_transport::send(node_id to, raft_message m) {
    _cluster.on_send(_self, to, std::move(m));
}

void cluster::on_send(node_id from, node_id to, raft_message m) {
    ++_stats.messages;
    if (const auto* v = std::get_if<vote_request>(&m)) {
        _votes[{from, to, v->correlation_id}] = v->pre_vote;
    } else if (const auto* r = std::get_if<vote_response>(&m); r && r->vote_granted) {
        auto it = _votes.find({to, from, r->correlation_id});
        if (it != _votes.end() && !it->second) {
            const auto& s = _nodes[size_t(from.value() - 1)]->store.state();
            if (!s || s->epoch != r->current_leader.epoch || s->voted != to) {
                _inv.violate("vote_persisted_before_granted",
                             fmt::format("node {} granted {} a vote in epoch {} not in its "
                                         "quorum-state",
                                         from, to, r->current_leader.epoch));
            }
        }
    }
    trace("send {}->{} {}", from, to, describe(m));
    _net.send(_now, from, to, std::move(m), _nodes[size_t(to.value() - 1)]->incarnation);
}

void cluster::boot(sim_node& n) {
    raft_config c = _o.timers;
    c.local_id = n.id;
    c.voters = _config_voters;
    c.cluster_id = "sim";
    n.state_machine = std::make_unique<sim_state_machine>(n.id, _inv);
    n.random = std::make_unique<seeded_random>(_rng());
    n.transport = std::make_unique<sim_transport>(*this, n.id);
    n.node =
        std::make_unique<raft_node>(c, n.log, n.store, *n.transport, *n.state_machine, *n.random);
    n.restart_at.reset();
    trace("boot node {} incarnation {} log=[{},{}) durable={}", n.id, n.incarnation,
          n.log.start_offset(), n.log.end_offset(), n.log.durable_end_offset());
    if (auto st = n.node->start(_now); !st) {
        _inv.violate("node_never_fails",
                     fmt::format("node {} failed to start: {}", n.id, st.err().message));
        return;
    }
    poll(n);
}

void cluster::crash(sim_node& n) {
    trace("crash node {} log=[{},{}) durable={}", n.id, n.log.start_offset(), n.log.end_offset(),
          n.log.durable_end_offset());
    n.node.reset();
    n.state_machine.reset();
    n.transport.reset();
    n.random.reset();
    n.log.crash();
    ++n.incarnation;  // its connections are gone: messages to it are lost
    n.next_poll = raft_time::max();
    ++_stats.crashes;
}

void cluster::poll(sim_node& n) {
    raft_time next = n.node->poll(_now);
    // A deadline that is already due still advances time a little, so a
    // node cannot spin the loop.
    n.next_poll = std::max(next, _now + raft_ms{1});
}

void cluster::deliver(envelope e) {
    sim_node& n = *_nodes[size_t(e.to.value() - 1)];
    if (!n.node || n.incarnation != e.to_incarnation || !_net.connected(e.from, e.to)) {
        return;
    }
    trace("deliver {}->{} {}", e.from, e.to, describe(e.message));
    n.node->handle(e.from, e.message, _now);
    poll(n);
}

sim_node* cluster::leader() {
    sim_node* best = nullptr;
    for (auto& n : _nodes) {
        if (n->node && n->node->is_leader() &&
            (best == nullptr || n->node->epoch() > best->node->epoch())) {
            best = n.get();
        }
    }
    return best;
}

void cluster::client_append() {
    // Clients mostly find the leader (as a metadata client would, from the
    // last answer it got), sometimes ask whoever.
    sim_node* l = leader();
    sim_node& n =
        l != nullptr && chance(0.8) ? *l : *_nodes[size_t(uniform(0, int64_t(size()) - 1))];
    if (!n.node) {
        return;
    }
    std::vector<bytes> records;
    int count = int(uniform(1, 3));
    for (int i = 0; i < count; ++i) {
        std::string v = fmt::format("c{}", _payload++);
        records.emplace_back(v.begin(), v.end());
    }
    auto r = n.node->append(std::move(records), _now);
    if (r) {
        trace("client append on node {} -> last offset {}", n.id, *r);
        poll(n);
    }
}

void cluster::fault() {
    int64_t what = uniform(0, 99);
    if (what < 35 && _o.crashes) {
        sim_node* l = leader();
        sim_node& n = l != nullptr && chance(_o.crash_leader)
                          ? *l
                          : *_nodes[size_t(uniform(0, int64_t(size()) - 1))];
        if (n.node) {
            crash(n);
            n.restart_at = _now + raft_ms{uniform(50, 3000)};
        }
    } else if (what < 65 && _o.partitions) {
        std::vector<int> groups(size());
        sim_node* l = leader();
        if (l != nullptr && chance(0.3)) {
            groups[size_t(l->id.value() - 1)] = 1;  // cut the leader off
        } else if (chance(0.4)) {
            groups[size_t(uniform(0, int64_t(size()) - 1))] = 1;  // isolate one node
        } else {
            for (auto& g : groups) {
                g = int(uniform(0, 1));
            }
        }
        std::string desc;
        for (int g : groups) {
            desc += char('0' + g);
        }
        trace("partition {}", desc);
        _net.partition(std::move(groups));
    } else {
        trace("heal network");
        _net.heal();
    }
}

void cluster::snapshot() {
    sim_node& n = *_nodes[size_t(uniform(0, int64_t(size()) - 1))];
    if (!n.node || n.state_machine->applied_end() == raft_offset{0}) {
        return;
    }
    auto id = n.node->create_snapshot(n.state_machine->applied_end(), n.state_machine->encode());
    if (!id) {
        _inv.violate("node_never_fails",
                     fmt::format("node {} could not snapshot at {}: {}", n.id,
                                 n.state_machine->applied_end(), id.err().message));
        return;
    }
    ++_stats.snapshots;
    bool truncate = chance(0.7);
    trace("snapshot node {} at {} epoch {}{}", n.id, id->offset, id->epoch,
          truncate ? " (log truncated before it)" : "");
    if (truncate) {
        if (auto t = n.node->delete_log_before_snapshot(); !t) {
            _inv.violate("node_never_fails",
                         fmt::format("node {} could not truncate: {}", n.id, t.err().message));
        }
    }
}

void cluster::resign() {
    if (sim_node* l = leader(); l && chance(0.5)) {
        trace("resign leader {} of epoch {}", l->id, l->node->epoch());
        l->node->resign(_now);
        poll(*l);
    }
}

void cluster::heal_all() {
    _healed = true;
    _net.heal();
    _net.set_faults(false);
    for (auto& n : _nodes) {
        if (!n->node) {
            boot(*n);
        }
    }
    // Half the time a minority of the voters stays cut off: a majority that
    // is connected and stable must make progress on its own.
    std::vector<int> groups(size(), 0);
    int cut = chance(0.5) ? int(uniform(1, std::max(1, (_o.voters - 1) / 2))) : 0;
    if (_o.voters < 3) {
        cut = 0;
    }
    for (int i = 0; i < cut; ++i) {
        groups[size_t(uniform(0, _o.voters - 1))] = 1;
    }
    std::string desc;
    for (size_t i = 0; i < size(); ++i) {
        _isolated.push_back(groups[i] == 1);
        desc += char('0' + groups[i]);
    }
    _net.partition(std::move(groups));
    trace("--- liveness phase: every node up, network perfect, partition {} ---", desc);
    _next_marker_try = _now;
}

void cluster::liveness_step() {
    _next_marker_try = _now + raft_ms{100};
    if (_marker_committed) {
        for (auto& n : _nodes) {
            if (!_isolated[size_t(n->id.value() - 1)] &&
                n->state_machine->applied_end() <= *_marker) {
                return;
            }
        }
        if (!_marker_done) {
            _marker_done = _now;
            _stats.liveness_ms = (_now - raft_time{_o.chaos}).count();
            trace("marker at {} applied on every connected node", *_marker);
        }
        return;
    }
    if (_marker) {
        return;  // waiting for the commit (or the news that it failed)
    }
    sim_node* l = leader();
    if (l == nullptr) {
        return;
    }
    std::string v = "marker";
    std::vector<bytes> records{bytes(v.begin(), v.end())};
    auto r = l->node->append(std::move(records), _now);
    if (!r) {
        return;
    }
    _marker = *r;
    trace("marker appended at {} by node {} epoch {}", *r, l->id, l->node->epoch());
    l->node->when_committed(*r, [this](status s) {
        if (s) {
            _marker_committed = true;
        } else {
            _marker.reset();  // leadership lost first: try again
        }
    });
    poll(*l);
}

void cluster::check() {
    for (auto& n : _nodes) {
        if (!n->node) {
            continue;
        }
        raft_node& r = *n->node;
        if (r.failure()) {
            _inv.violate("node_never_fails",
                         fmt::format("node {} failed: {}", n->id, r.failure()->message));
        }
        _inv.on_epoch(n->id, r.epoch());
        _inv.on_high_watermark(n->id, n->incarnation, r.high_watermark());
        _inv.check_log(n->id, n->incarnation, r.high_watermark(), n->log);
        if (r.is_leader()) {
            _inv.on_leader(n->id, r.epoch(), n->log);
        }
        _stats.max_epoch = std::max(_stats.max_epoch, r.epoch().value());
    }
}

std::string cluster::describe_nodes() const {
    std::string out;
    for (const auto& n : _nodes) {
        if (!n->node) {
            out += fmt::format("\n  node {}: down", n->id);
            continue;
        }
        const raft_node& r = *n->node;
        out += fmt::format("\n  node {}: {} epoch={} leader={} hw={} log=[{},{}) applied={}", n->id,
                           role_name(r.role()), r.epoch(), r.leader().leader,
                           r.high_watermark() ? r.high_watermark()->value() : -1,
                           n->log.start_offset(), n->log.end_offset(),
                           n->state_machine->applied_end());
    }
    return out;
}

sim_result cluster::run() {
    for (auto& n : _nodes) {
        boot(*n);
    }
    const raft_time chaos_end{_o.chaos};
    const raft_time end = chaos_end + _o.liveness;
    _next_client = _now + raft_ms{uniform(10, 150)};
    _next_fault = _now + raft_ms{uniform(_o.fault_min_ms, _o.fault_max_ms)};
    _next_snapshot = _now + raft_ms{uniform(300, 2000)};
    _next_resign = _now + raft_ms{uniform(2000, 8000)};
    auto never = raft_time::max();
    while (!_inv.violation()) {
        if (!_healed && _now >= chaos_end) {
            heal_all();
        }
        if (_marker_done && _now >= *_marker_done + raft_ms{500}) {
            break;  // settled: nothing more to learn from this run
        }
        raft_time t = _net.next_time();
        sim_node* due = nullptr;
        for (auto& n : _nodes) {
            if (n->node && n->next_poll < t) {
                t = n->next_poll;
                due = n.get();
            }
        }
        raft_time restart = never;
        sim_node* restarting = nullptr;
        for (auto& n : _nodes) {
            if (n->restart_at && *n->restart_at < restart) {
                restart = *n->restart_at;
                restarting = n.get();
            }
        }
        raft_time chaos_next =
            _healed ? never
                    : std::min({_next_fault, _next_snapshot, _next_resign, restart, chaos_end});
        raft_time next =
            std::min({t, _next_client, chaos_next, _healed ? _next_marker_try : never});
        if (next > end) {
            break;
        }
        _now = next;
        ++_stats.steps;
        if (next == t && due == nullptr) {
            deliver(_net.pop());
        } else if (next == t) {
            poll(*due);
        } else if (next == _next_client) {
            _next_client = _now + raft_ms{uniform(10, 150)};
            client_append();
        } else if (_healed) {
            liveness_step();
        } else if (next == restart) {
            boot(*restarting);
        } else if (next == _next_fault) {
            _next_fault = _now + raft_ms{uniform(_o.fault_min_ms, _o.fault_max_ms)};
            fault();
        } else if (next == _next_snapshot) {
            _next_snapshot = _now + raft_ms{uniform(300, 2000)};
            if (_o.snapshots) {
                snapshot();
            }
        } else if (next == _next_resign) {
            _next_resign = _now + raft_ms{uniform(2000, 8000)};
            if (_o.resigns) {
                resign();
            }
        }
        check();
    }
    if (!_inv.violation() && !_marker_done) {
        _inv.violate("liveness",
                     fmt::format("{} s after the network healed the marker was {}; nodes:{}",
                                 _o.liveness.count() / 1000,
                                 _marker_committed ? "committed but not applied everywhere"
                                 : _marker         ? "appended but not committed"
                                                   : "never appended (no leader)",
                                 describe_nodes()));
    }
    _stats.committed = _inv.committed_end().value();
    sim_result result;
    result.stats = _stats;
    if (_inv.violation()) {
        result.violation =
            fmt::format("t={} {}; nodes:{}", _now.ms(), *_inv.violation(), describe_nodes());
    }
    return result;
}

}  // namespace

sim_result run_simulation(const sim_options& options) {
    cluster c(options);
    return c.run();
}

}  // namespace samsa::raft::sim
