// log: the shard's side of compaction (storage/compaction/, docs/compaction.md):
// the plan a cleaner thread works from, and the swap of what it cleaned.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "storage/log.h"
#include "storage/segment_name.h"

namespace samsa::storage {

compaction::cleaning_plan log::plan_cleaning(int64_t first_dirty, int64_t now_ms) const {
    compaction::cleaning_plan plan;
    plan.dir = _dir;
    plan.tp = _tp;
    plan.config = _config;
    plan.generation = _generation;
    if (_closed || _failure) {
        return plan;
    }
    // Kafka's cleanableOffsets: never the active segment, nothing at or above
    // the last stable offset (open transactions; it is at most the high
    // watermark), nothing inside min.compaction.lag.ms.
    int64_t limit = std::min(active()->base_offset(), last_stable_offset());
    if (first_dirty < _log_start_offset || first_dirty > _log_end_offset) {
        first_dirty = _log_start_offset;  // a checkpoint from before a truncation or a re-creation
    }
    if (_config.min_compaction_lag_ms > 0) {
        for (auto it = _segments.upper_bound(first_dirty); it != _segments.end(); ++it) {
            auto prev = std::prev(it);
            if (prev->second->largest_timestamp() > now_ms - _config.min_compaction_lag_ms) {
                limit = std::min(limit, prev->first);
                break;
            }
        }
    }
    plan.first_dirty_offset = first_dirty;
    plan.first_uncleanable_offset = limit;
    for (auto it = _segments.begin(); it != _segments.end(); ++it) {
        auto next = std::next(it);
        if (next == _segments.end() || next->first > limit) {
            break;
        }
        const log_segment& seg = *it->second;
        compaction::source_segment s;
        s.base_offset = seg.base_offset();
        s.next_offset = seg.next_offset();
        s.size_bytes = seg.size_bytes();
        s.largest_timestamp = seg.largest_timestamp();
        s.index_entries = seg.index().entries();
        s.time_index_entries = seg.timeindex().entries();
        s.file = seg.shared_log_file();
        s.aborted = seg.txn_index().entries();
        plan.segments.push_back(std::move(s));
    }
    for (const auto& [pid, entry] : _producers.producers()) {
        if (int64_t last = entry.last_data_offset(); last >= 0) {
            plan.producer_last_offsets.emplace(pid, last);
        }
    }
    return plan;
}

namespace {

void discard(std::vector<compaction::cleaned_segment>& segments) {
    for (auto& c : segments) {
        (void)c.segment->close();
        (void)c.segment->delete_files();
    }
    segments.clear();
}

}  // namespace

result<bool> log::swap_cleaned(compaction::cleaning_outcome& outcome, uint64_t generation,
                               int64_t now_ms) {
    bool current = !_closed && !_failure && generation == _generation;
    for (const auto& c : outcome.segments) {
        for (int64_t base : c.replaces) {
            auto it = _segments.find(base);
            current = current && it != _segments.end() && it->second != active();
        }
    }
    if (!current) {
        discard(outcome.segments);
        return false;
    }
    for (auto& c : outcome.segments) {
        // .cleaned -> .swap: from here a crash completes the swap on load.
        if (auto s = c.segment->change_suffix(swap_suffix); !s) {
            discard(outcome.segments);
            return fail(s.err()).err();
        }
        for (int64_t base : c.replaces) {
            auto it = _segments.find(base);
            auto old = it->second;
            _segments.erase(it);
            if (auto s = old->rename_to_deleted(); !s) {
                return fail(s.err()).err();
            }
            _deletions->schedule(std::move(old), now_ms + _config.file_delete_delay_ms);
            if (base != c.segment->base_offset()) {
                // As Kafka's replaceSegments: a segment that is gone takes its
                // producer snapshot with it.
                _producers.delete_snapshot(base);
            }
        }
        if (auto s = c.segment->change_suffix({}); !s) {
            return fail(s.err()).err();
        }
        _segments.emplace(c.segment->base_offset(), c.segment);
    }
    _dir_dirty = true;
    outcome.segments.clear();
    return true;
}

}  // namespace samsa::storage
