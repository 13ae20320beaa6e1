#include "raft/memory_raft_log.h"

#include <algorithm>

#include "raft/snapshot_cleaning.h"

namespace samsa::raft {

int64_t raft_batch::size_bytes() const {
    // Record batch v2: a 61-byte header, and per record about 7 bytes of
    // framing besides the value (length, attributes, deltas, null key, headers).
    int64_t n = 61;
    for (const auto& r : records) {
        n += 7 + int64_t(r.size());
    }
    return n;
}

raft_offset memory_raft_log::end_offset() const {
    return _batches.empty() ? _start : _batches.back().end_offset();
}

raft_epoch memory_raft_log::last_epoch() const {
    if (!_batches.empty()) {
        return _batches.back().epoch;
    }
    auto s = latest_snapshot();
    return s ? s->id.epoch : raft_epoch{0};
}

result<raft_offset> memory_raft_log::append_as_leader(std::vector<bytes> records, raft_epoch epoch,
                                                      control_record_type control) {
    if (records.empty()) {
        return error{error_code::invalid_record, "empty batch"};
    }
    if (epoch < last_epoch()) {
        return error{error_code::invalid_record, "leader append with an epoch below the log's"};
    }
    raft_batch b{end_offset(), epoch, control, std::move(records)};
    if (_epochs.empty() || _epochs.back().epoch < epoch) {
        _epochs.push_back({epoch, b.base_offset});
    }
    raft_offset last = b.last_offset();
    _batches.push_back(std::move(b));
    return last;
}

status memory_raft_log::append_as_follower(const std::vector<raft_batch>& batches) {
    raft_offset next = end_offset();
    raft_epoch epoch = last_epoch();
    for (const auto& b : batches) {
        if (b.base_offset != next || b.records.empty() || b.epoch < epoch) {
            return error{error_code::invalid_record, "follower batches not contiguous"};
        }
        next = b.end_offset();
        epoch = b.epoch;
    }
    for (const auto& b : batches) {
        if (_epochs.empty() || _epochs.back().epoch < b.epoch) {
            _epochs.push_back({b.epoch, b.base_offset});
        }
        _batches.push_back(b);
    }
    return {};
}

status memory_raft_log::truncate_to(raft_offset end) {
    if (end < _start) {
        return error{error_code::offset_out_of_range, "truncation below the log start"};
    }
    while (!_batches.empty() && _batches.back().end_offset() > end) {
        _batches.pop_back();
    }
    _durable = std::min(_durable, end_offset());
    rebuild_epochs();
    return {};
}

status memory_raft_log::flush() {
    _durable = end_offset();
    return {};
}

void memory_raft_log::crash() {
    while (!_batches.empty() && _batches.back().end_offset() > _durable) {
        _batches.pop_back();
    }
    rebuild_epochs();
}

size_t memory_raft_log::batch_index(raft_offset offset) const {
    auto it =
        std::upper_bound(_batches.begin(), _batches.end(), offset,
                         [](raft_offset o, const raft_batch& b) { return o < b.base_offset; });
    return size_t(it - _batches.begin()) - 1;
}

result<std::vector<raft_batch>> memory_raft_log::read(raft_offset from, int64_t max_bytes) const {
    if (from < _start || from >= end_offset()) {
        return error_code::offset_out_of_range;
    }
    std::vector<raft_batch> out;
    int64_t bytes = 0;
    for (size_t i = batch_index(from); i < _batches.size(); ++i) {
        bytes += _batches[i].size_bytes();
        if (!out.empty() && bytes > max_bytes) {
            break;
        }
        out.push_back(_batches[i]);
    }
    return out;
}

std::optional<offset_and_epoch> memory_raft_log::end_offset_for_epoch(raft_epoch epoch) const {
    for (size_t i = _epochs.size(); i-- > 0;) {
        if (_epochs[i].epoch <= epoch) {
            raft_offset end = i + 1 < _epochs.size() ? _epochs[i + 1].start : end_offset();
            return offset_and_epoch{end, _epochs[i].epoch};
        }
    }
    // Below every epoch of the log: the snapshot's epoch ends where the log starts.
    auto s = latest_snapshot();
    if (s && s->id.offset == _start && s->id.epoch <= epoch) {
        return offset_and_epoch{_start, s->id.epoch};
    }
    return std::nullopt;
}

std::optional<raft_epoch> memory_raft_log::epoch_for_offset(raft_offset offset) const {
    if (offset >= _start && offset < end_offset()) {
        return _batches[batch_index(offset)].epoch;
    }
    auto s = latest_snapshot();
    if (s && s->id.offset == _start && offset == _start - 1) {
        return s->id.epoch;
    }
    return std::nullopt;
}

std::optional<raft_snapshot> memory_raft_log::latest_snapshot() const {
    if (_snapshots.empty()) {
        return std::nullopt;
    }
    return _snapshots.back();
}

result<raft_snapshot> memory_raft_log::read_snapshot(offset_and_epoch id) const {
    for (const auto& s : _snapshots) {
        if (s.id == id) {
            return s;
        }
    }
    return error_code::snapshot_not_found;
}

status memory_raft_log::store_snapshot(raft_snapshot snapshot) {
    auto latest = latest_snapshot();
    if (latest && latest->id.offset >= snapshot.id.offset) {
        return {};  // not newer: nothing to keep
    }
    offset_and_epoch newest = snapshot.id;
    _snapshots.push_back(std::move(snapshot));
    // Older snapshots at or above the log start may still be mid-transfer to a
    // follower; those below it serve nobody.
    std::erase_if(_snapshots,
                  [&](const raft_snapshot& s) { return s.id.offset < _start && s.id != newest; });
    return {};
}

std::vector<snapshot_info> memory_raft_log::snapshot_infos() const {
    std::vector<snapshot_info> out;
    for (const auto& s : _snapshots) {
        if (s.id.offset >= _start) {
            out.push_back({s.id, int64_t(s.data->size()), snapshot_header_timestamp(*s.data)});
        }
    }
    return out;
}

int64_t memory_raft_log::size_bytes() const {
    int64_t total = 0;
    for (const auto& b : _batches) {
        total += b.size_bytes();
    }
    return total;
}

result<bool> memory_raft_log::delete_before_snapshot(offset_and_epoch id) {
    auto s = read_snapshot(id);
    if (!s || s->id.offset <= _start) {
        return false;
    }
    if (s->id.offset > end_offset() || epoch_for_offset(s->id.offset - 1) != s->id.epoch) {
        return error{error_code::invalid_request, "snapshot does not match the log"};
    }
    // Whole batches only: when a batch straddles the snapshot's end the log
    // stays as it is (the leader's snapshots end at batch boundaries anyway).
    size_t keep = 0;
    while (keep < _batches.size() && _batches[keep].end_offset() <= s->id.offset) {
        ++keep;
    }
    if (keep < _batches.size() && _batches[keep].base_offset != s->id.offset) {
        return false;
    }
    _batches.erase(_batches.begin(), _batches.begin() + std::ptrdiff_t(keep));
    _start = s->id.offset;
    _durable = std::max(_durable, _start);
    rebuild_epochs();
    std::erase_if(_snapshots, [&](const raft_snapshot& x) { return x.id.offset < _start; });
    return true;
}

result<bool> memory_raft_log::truncate_to_latest_snapshot() {
    auto s = latest_snapshot();
    if (!s) {
        return false;
    }
    bool consistent = s->id.offset <= end_offset() && s->id.offset >= _start &&
                      (s->id.offset == _start || epoch_for_offset(s->id.offset - 1) == s->id.epoch);
    if (consistent) {
        return false;
    }
    _batches.clear();
    _start = s->id.offset;
    _durable = _start;
    rebuild_epochs();
    std::erase_if(_snapshots, [&](const raft_snapshot& x) { return x.id.offset < _start; });
    return true;
}

void memory_raft_log::rebuild_epochs() {
    _epochs.clear();
    for (const auto& b : _batches) {
        if (_epochs.empty() || _epochs.back().epoch < b.epoch) {
            _epochs.push_back({b.epoch, b.base_offset});
        }
    }
    _durable = std::min(_durable, end_offset());
    _durable = std::max(_durable, _start);
}

}  // namespace samsa::raft
