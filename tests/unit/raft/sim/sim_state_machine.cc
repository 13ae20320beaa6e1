#include "raft/sim/sim_state_machine.h"

#include <fmt/format.h>

namespace samsa::raft::sim {

void sim_state_machine::handle_commit(const raft_batch& batch) {
    if (batch.base_offset != applied_end()) {
        _inv.violate("applied_is_prefix_of_committed",
                     fmt::format("node {} handed offset {} after {} entries", _id,
                                 batch.base_offset, _entries.size()));
        return;
    }
    for (const auto& r : batch.records) {
        uint64_t fp = fingerprint(batch.epoch, batch.control, r);
        _inv.on_commit(_id, applied_end(), fp);
        _entries.push_back(fp);
    }
}

void sim_state_machine::handle_snapshot(const raft_snapshot& snapshot) {
    const bytes& d = *snapshot.data;
    if (d.size() % 8 != 0 || int64_t(d.size() / 8) != snapshot.id.offset.value()) {
        _inv.violate("applied_is_prefix_of_committed",
                     fmt::format("node {} got a snapshot of {} bytes for end offset {}", _id,
                                 d.size(), snapshot.id.offset));
        return;
    }
    std::vector<uint64_t> entries(d.size() / 8);
    for (size_t i = 0; i < entries.size(); ++i) {
        entries[i] = load_be64(d.data() + 8 * i);
    }
    _inv.on_snapshot(_id, entries);
    _entries = std::move(entries);
}

void sim_state_machine::handle_leader_change(leader_and_epoch leader) {
    if (_loaded && leader.epoch < _leader.epoch) {
        _inv.violate("epoch_monotonic", fmt::format("node {} told of epoch {} after epoch {}", _id,
                                                    leader.epoch, _leader.epoch));
    }
    _loaded = true;
    _leader = leader;
}

bytes sim_state_machine::encode() const {
    bytes out(_entries.size() * 8);
    for (size_t i = 0; i < _entries.size(); ++i) {
        store_be64(out.data() + 8 * i, _entries[i]);
    }
    return out;
}

}  // namespace samsa::raft::sim
