// log: truncation (replication), DeleteRecords and retention. Segments that go
// are renamed to .deleted at once and unlinked later by the deletion_queue.
#include <algorithm>

#include "storage/log.h"

namespace samsa::storage {

status log::remove_segments(const std::vector<int64_t>& bases, int64_t now_ms) {
    ++_generation;
    for (int64_t base : bases) {
        auto it = _segments.find(base);
        if (it == _segments.end()) {
            continue;
        }
        auto seg = it->second;
        _segments.erase(it);
        if (auto s = seg->rename_to_deleted(); !s) {
            return fail(s.err());
        }
        _deletions->schedule(std::move(seg), now_ms + _config.file_delete_delay_ms);
    }
    return {};
}

void log::after_truncation(int64_t new_leo) {
    _log_end_offset = new_leo;
    if (_log_start_offset > new_leo) {
        // Only when the truncation point fell inside the batch holding the log
        // start offset: keep start <= end.
        set_log_start_offset(new_leo);
    }
    set_recovery_point(std::min(_recovery_point, new_leo));
    set_high_watermark(std::min(_high_watermark, new_leo));
    _truncated_to = std::min(_truncated_to, new_leo);
    fail_waiters_from(new_leo, error{error_code::not_leader_or_follower,
                                     "offsets truncated before they were flushed"});
}

status log::truncate_to(int64_t offset, int64_t now_ms) {
    if (_failure) {
        return *_failure;
    }
    if (offset < 0) {
        return error{error_code::invalid_request, "negative truncation offset"};
    }
    if (offset >= _log_end_offset) {
        // Nothing to cut from the log, but the epoch cache may end with an
        // epoch this replica started as leader and never wrote to: a follower
        // must not announce it (its fetches would diverge forever). Kafka's
        // truncateTo drops such entries too.
        return _epochs.truncate_from_end(_log_end_offset);
    }
    if (offset < _log_start_offset) {
        return truncate_fully_and_start_at(offset, now_ms);
    }
    std::vector<int64_t> later;
    for (auto it = _segments.upper_bound(offset); it != _segments.end(); ++it) {
        later.push_back(it->first);
    }
    bool active_changes = !later.empty();
    if (auto s = remove_segments(later, now_ms); !s) {
        return s;
    }
    auto seg = active();
    if (auto r = seg->truncate_to(offset); !r) {
        return fail(r.err());
    }
    if (active_changes) {
        if (auto s = seg->on_become_active(); !s) {
            return fail(s.err());
        }
    }
    after_truncation(seg->next_offset());
    if (auto s = _epochs.truncate_from_end(_log_end_offset); !s) {
        return fail(s.err());
    }
    // The removed batches may have been any producer's latest: rebuild from the
    // latest snapshot at or below the new LEO, as Kafka does.
    if (auto s = rebuild_producer_state(now_ms); !s) {
        return fail(s.err());
    }
    return {};
}

status log::truncate_fully_and_start_at(int64_t offset, int64_t now_ms) {
    if (_failure) {
        return *_failure;
    }
    if (offset < 0) {
        return error{error_code::invalid_request, "negative start offset"};
    }
    std::vector<int64_t> all;
    for (const auto& [base, seg] : _segments) {
        all.push_back(base);
    }
    if (auto s = remove_segments(all, now_ms); !s) {
        return s;
    }
    auto seg = log_segment::create(_dir, offset, _config, now_ms);
    if (!seg) {
        return fail(seg.err());
    }
    _segments.emplace(offset, *seg);
    _dir_dirty = true;
    fail_waiters_from(0, error{error_code::not_leader_or_follower, "log truncated fully"});
    _log_end_offset = offset;
    set_log_start_offset(offset);
    set_recovery_point(offset);
    set_high_watermark(offset);
    _truncated_to = std::min(_truncated_to, offset);
    _unflushed_messages = 0;
    if (auto s = _epochs.clear(); !s) {
        return fail(s.err());
    }
    if (auto s = _producers.truncate_fully_and_start_at(offset); !s) {
        return fail(s.err());
    }
    return {};
}

template <typename Pred>
result<int> log::delete_segments_while(Pred pred, int64_t now_ms) {
    std::vector<int64_t> deletable;
    for (auto it = _segments.begin(); it != _segments.end(); ++it) {
        auto next = std::next(it);
        if (next == _segments.end()) {
            break;  // never the active segment
        }
        // Nothing above the high watermark: it may not be replicated yet.
        if (_high_watermark < next->first || !pred(*it->second, next->first)) {
            break;
        }
        deletable.push_back(it->first);
    }
    if (deletable.empty()) {
        return 0;
    }
    if (auto s = remove_segments(deletable, now_ms); !s) {
        return s.err();
    }
    // Each segment's snapshot goes with it; the producers' state stays until
    // producer.id.expiration.ms (KIP-360), and the snapshot at the new first
    // segment's base keeps it across restarts.
    _producers.delete_snapshots_before(_segments.begin()->first);
    if (_segments.begin()->first > _log_start_offset) {
        set_log_start_offset(_segments.begin()->first);
        if (auto s = _epochs.truncate_from_start(_log_start_offset); !s) {
            return fail(s.err()).err();
        }
    }
    return int(deletable.size());
}

result<int64_t> log::delete_records_before(int64_t offset, int64_t now_ms) {
    if (_failure) {
        return *_failure;
    }
    if (offset > _high_watermark) {
        return error{error_code::offset_out_of_range,
                     "cannot move the log start offset of " + _tp.to_string() + " to " +
                         std::to_string(offset) + ", above the high watermark " +
                         std::to_string(_high_watermark)};
    }
    if (offset > _log_start_offset) {
        set_log_start_offset(offset);
        if (auto s = _epochs.truncate_from_start(offset); !s) {
            return fail(s.err()).err();
        }
        auto n = delete_segments_while(
            [&](const log_segment&, int64_t next_base) { return next_base <= _log_start_offset; },
            now_ms);
        if (!n) {
            return n.err();
        }
    }
    return _log_start_offset;
}

result<int> log::delete_old_segments(int64_t now_ms) {
    if (_failure) {
        return *_failure;
    }
    // Kafka expires idle producers on its own timer; retention is the periodic
    // per-log task here, run every log.retention.check.interval.ms.
    remove_expired_producers(now_ms);
    int total = 0;
    auto below_start = delete_segments_while(
        [&](const log_segment&, int64_t next_base) { return next_base <= _log_start_offset; },
        now_ms);
    if (!below_start) {
        return below_start.err();
    }
    total += *below_start;
    if (!_config.cleanup_delete) {
        return total;
    }
    if (_config.retention_bytes >= 0) {
        int64_t excess = size_bytes() - _config.retention_bytes;
        auto by_size = delete_segments_while(
            [&](const log_segment& seg, int64_t) {
                if (excess - seg.size_bytes() < 0) {
                    return false;
                }
                excess -= seg.size_bytes();
                return true;
            },
            now_ms);
        if (!by_size) {
            return by_size.err();
        }
        total += *by_size;
    }
    if (_config.retention_ms >= 0) {
        auto by_time = delete_segments_while(
            [&](const log_segment& seg, int64_t) {
                return now_ms - seg.largest_timestamp() > _config.retention_ms;
            },
            now_ms);
        if (!by_time) {
            return by_time.err();
        }
        total += *by_time;
    }
    return total;
}

}  // namespace samsa::storage
