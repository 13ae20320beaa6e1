#include "raft/sim/sim_invariants.h"

#include <algorithm>

#include <fmt/format.h>

namespace samsa::raft::sim {

uint64_t fingerprint(raft_epoch epoch, control_record_type control, const bytes& value) {
    // FNV-1a over the epoch, the control type and the value.
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint8_t b) {
        h ^= b;
        h *= 1099511628211ull;
    };
    for (int i = 0; i < 4; ++i) {
        mix(uint8_t(uint32_t(epoch.value()) >> (8 * i)));
    }
    mix(uint8_t(int16_t(control)));
    for (uint8_t b : value) {
        mix(b);
    }
    return h;
}

void sim_invariants::violate(std::string_view name, std::string detail) {
    if (!_violation) {
        _violation = fmt::format("invariant {} violated: {}", name, detail);
    }
}

void sim_invariants::on_commit(node_id node, raft_offset offset, uint64_t fp) {
    auto o = size_t(offset.value());
    if (o < _committed.size()) {
        if (_committed[o] != fp) {
            violate("committed_entries_never_change",
                    fmt::format("node {} committed a different entry at offset {}", node, o));
        }
        return;
    }
    if (o != _committed.size()) {
        // Someone commits past what anyone committed before: fine as long as
        // the gap is committed by someone before it is compared; the state
        // machines check their own contiguity, so a gap here means a node
        // started from a snapshot nobody else has applied entries of.
        violate("applied_is_prefix_of_committed",
                fmt::format("node {} committed offset {} while the known committed log ends at {}",
                            node, o, _committed.size()));
        return;
    }
    _committed.push_back(fp);
}

void sim_invariants::on_snapshot(node_id node, const std::vector<uint64_t>& entries) {
    for (size_t o = 0; o < entries.size(); ++o) {
        if (o >= _committed.size()) {
            violate(
                "applied_is_prefix_of_committed",
                fmt::format("node {} loaded a snapshot holding uncommitted offset {}", node, o));
            return;
        }
        if (_committed[o] != entries[o]) {
            violate("committed_entries_never_change",
                    fmt::format("node {} loaded a snapshot that differs at offset {}", node, o));
            return;
        }
    }
}

void sim_invariants::on_leader(node_id node, raft_epoch epoch, const memory_raft_log& log) {
    auto [it, inserted] = _leaders.emplace(epoch, node);
    if (!inserted) {
        if (it->second != node) {
            violate("single_leader_per_epoch",
                    fmt::format("nodes {} and {} both lead epoch {}", it->second, node, epoch));
        }
        return;
    }
    // First sight of this leader: Leader Completeness (Raft §5.4).
    raft_offset start = log.start_offset();
    if (log.end_offset() < committed_end()) {
        violate("leader_has_all_committed",
                fmt::format("leader {} of epoch {} ends at {} but offsets up to {} are committed",
                            node, epoch, log.end_offset(), committed_end().value() - 1));
        return;
    }
    if (auto s = log.latest_snapshot(); start > raft_offset{0} && (!s || s->id.offset < start)) {
        violate("leader_has_all_committed",
                fmt::format("leader {} log starts at {} without a snapshot", node, start));
        return;
    }
    for (const auto& b : log.batches()) {
        for (size_t i = 0; i < b.records.size(); ++i) {
            auto o = size_t(b.base_offset.value()) + i;
            if (o >= _committed.size()) {
                return;
            }
            if (_committed[o] != fingerprint(b.epoch, b.control, b.records[i])) {
                violate("leader_has_all_committed",
                        fmt::format("leader {} of epoch {} differs at committed offset {}", node,
                                    epoch, o));
                return;
            }
        }
    }
}

void sim_invariants::on_epoch(node_id node, raft_epoch epoch) {
    auto [it, inserted] = _epochs.emplace(node, epoch);
    if (!inserted) {
        if (epoch < it->second) {
            violate("epoch_monotonic",
                    fmt::format("node {} went from epoch {} back to {}", node, it->second, epoch));
        }
        it->second = epoch;
    }
}

void sim_invariants::on_high_watermark(node_id node, int incarnation,
                                       std::optional<raft_offset> hw) {
    if (!hw) {
        return;
    }
    auto key = std::make_pair(node, incarnation);
    auto it = _hws.find(key);
    if (it != _hws.end() && *hw < it->second) {
        violate(
            "high_watermark_monotonic",
            fmt::format("node {} high watermark went from {} back to {}", node, it->second, *hw));
    }
    _hws[key] = *hw;
}

void sim_invariants::check_log(node_id node, int incarnation, std::optional<raft_offset> hw,
                               const memory_raft_log& log) {
    if (!hw) {
        return;
    }
    raft_offset& checked = _log_checked[{node, incarnation}];
    raft_offset from = std::max(checked, log.start_offset());
    raft_offset until = std::min(*hw, log.end_offset());
    if (from >= until) {
        return;
    }
    const auto& batches = log.batches();
    auto it =
        std::upper_bound(batches.begin(), batches.end(), from,
                         [](raft_offset o, const raft_batch& b) { return o < b.base_offset; });
    for (--it; it != batches.end() && it->base_offset < until; ++it) {
        for (size_t i = 0; i < it->records.size(); ++i) {
            raft_offset o = it->base_offset + int64_t(i);
            if (o < from || o >= until) {
                continue;
            }
            auto idx = size_t(o.value());
            if (idx >= _committed.size() ||
                _committed[idx] != fingerprint(it->epoch, it->control, it->records[i])) {
                violate("log_below_high_watermark_is_committed",
                        fmt::format("node {} holds at offset {} (below its high watermark {}) an "
                                    "entry that is not the committed one",
                                    node, o, *hw));
                return;
            }
        }
    }
    checked = until;
}

}  // namespace samsa::raft::sim
