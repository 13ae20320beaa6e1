#include "raft/leader_state.h"

#include <algorithm>

namespace samsa::raft {

leader_state::leader_state(raft_epoch epoch, node_id self, const std::vector<node_id>& voters,
                           raft_offset epoch_start_offset, std::vector<node_id> granting_voters,
                           raft_time now)
    : _epoch(epoch),
      _self(self),
      _epoch_start_offset(epoch_start_offset),
      _granting(std::move(granting_voters)),
      _elected_at(now) {
    for (node_id v : voters) {
        _voters[v].id = v;
    }
    _voters[self].acknowledged = true;
}

bool leader_state::update_local(raft_offset durable_end, raft_time now) {
    auto& me = _voters[_self];
    me.end_offset = durable_end;
    me.last_fetch = now;
    me.last_caught_up = now;
    return maybe_advance_high_watermark();
}

bool leader_state::update_replica(node_id id, raft_offset fetch_offset, raft_offset leader_end,
                                  raft_time now) {
    if (!id.is_valid()) {
        // A fetcher that is no replica (e.g. a tool reading the log): Kafka's
        // leader does not track it, nor list it among the observers.
        return false;
    }
    auto it = _voters.find(id);
    bool voter = it != _voters.end();
    replica_progress& p = voter ? it->second : _observers[id];
    p.id = id;
    p.end_offset = fetch_offset;
    p.last_fetch = now;
    p.acknowledged = true;
    if (fetch_offset >= leader_end) {
        p.last_caught_up = now;
    }
    return voter && maybe_advance_high_watermark();
}

void leader_state::touch(node_id id, raft_time now) {
    if (!id.is_valid()) {
        return;
    }
    auto it = _voters.find(id);
    replica_progress& p = it != _voters.end() ? it->second : _observers[id];
    p.id = id;
    p.last_fetch = now;
    p.acknowledged = true;
}

void leader_state::acknowledge(node_id voter) {
    if (auto it = _voters.find(voter); it != _voters.end()) {
        it->second.acknowledged = true;
    }
}

std::vector<node_id> leader_state::voters_to_remind(raft_time now, raft_ms fetch_timeout) const {
    std::vector<node_id> out;
    for (const auto& [id, p] : _voters) {
        bool silent = !p.last_fetch || *p.last_fetch + fetch_timeout <= now;
        if (id != _self && (!p.acknowledged || silent)) {
            out.push_back(id);
        }
    }
    return out;
}

bool leader_state::maybe_advance_high_watermark() {
    std::vector<raft_offset> ends;
    for (const auto& [id, p] : _voters) {
        if (p.end_offset) {
            ends.push_back(*p.end_offset);
        }
    }
    size_t majority = _voters.size() / 2 + 1;
    if (ends.size() < majority) {
        return false;
    }
    std::sort(ends.begin(), ends.end(), std::greater<>());
    raft_offset candidate = ends[majority - 1];
    // Only an offset past the epoch start commits an entry of this epoch.
    if (candidate <= _epoch_start_offset) {
        return false;
    }
    if (_high_watermark && candidate <= *_high_watermark) {
        return false;
    }
    _high_watermark = candidate;
    return true;
}

raft_time leader_state::check_quorum_deadline(raft_ms timeout) const {
    // Voters that never fetched count from the election.
    std::vector<raft_time> seen;
    for (const auto& [id, p] : _voters) {
        seen.push_back(id == _self ? raft_time::max() : p.last_fetch.value_or(_elected_at));
    }
    std::sort(seen.begin(), seen.end(), std::greater<>());
    raft_time majority_seen = seen[_voters.size() / 2];
    return majority_seen == raft_time::max() ? raft_time::max() : majority_seen + timeout;
}

std::vector<node_id> leader_state::preferred_successors() const {
    std::vector<const replica_progress*> others;
    for (const auto& [id, p] : _voters) {
        if (id != _self) {
            others.push_back(&p);
        }
    }
    std::stable_sort(others.begin(), others.end(), [](const auto* a, const auto* b) {
        return a->end_offset.value_or(raft_offset{-1}) > b->end_offset.value_or(raft_offset{-1});
    });
    std::vector<node_id> out;
    for (const auto* p : others) {
        out.push_back(p->id);
    }
    return out;
}

}  // namespace samsa::raft
