// log: producer state (storage/producer_state_manager.h) kept in step with the
// segments — loaded on open, rebuilt after truncation, snapshotted at rolls
// and at a clean close (docs/formats/producer_snapshot.md, "Lifecycle").
//
// The state must always equal what replaying every batch of the log would
// give (within the last five batches per producer): on open, the latest
// snapshot at or above the first segment's base and at or below the LEO is
// loaded and the batches after it replayed, so a crash anywhere loses nothing
// the log still holds.
#include "storage/file_batch_reader.h"
#include "storage/log.h"

namespace samsa::storage {

status log::load_producer_state(int64_t now_ms) {
    std::vector<int64_t> bases;
    for (const auto& [base, seg] : _segments) {
        bases.push_back(base);
    }
    if (auto s = _producers.remove_stray_snapshots(bases); !s) {
        return s;
    }
    auto replayed = rebuild_producer_state(now_ms);
    if (!replayed) {
        return replayed.err();
    }
    // As Kafka, snapshot what a replay rebuilt, so that the next unclean start
    // replays only what comes after it.
    return *replayed ? snapshot_producer_state_at(_log_end_offset) : status();
}

result<bool> log::rebuild_producer_state(int64_t now_ms) {
    // Below the first segment there is nothing to replay from: a snapshot there
    // would describe batches that are gone, and an older state than the log's
    // would reject the producers' next sequences.
    const int64_t lowest = _segments.begin()->first;
    if (auto s = _producers.truncate_and_reload(lowest, _log_end_offset, now_ms); !s) {
        return s.err();
    }
    const int64_t from = _producers.map_end_offset();
    if (auto s = replay_producer_state(from, _log_end_offset); !s) {
        return s.err();
    }
    _producers.update_map_end_offset(_log_end_offset);
    // Transactions the replay ended below the high watermark are stable: the
    // high watermark was set before the replay found them.
    _producers.on_high_watermark(_high_watermark);
    return from < _log_end_offset;
}

status log::replay_producer_state(int64_t from, int64_t to) {
    // From the segment holding `from` (the one before upper_bound).
    auto it = _segments.upper_bound(from);
    if (it != _segments.begin()) {
        --it;
    }
    for (; it != _segments.end() && it->first < to; ++it) {
        const log_segment& seg = *it->second;
        if (seg.next_offset() <= from) {
            continue;
        }
        auto start = seg.translate_offset(from);
        if (!start) {
            return start.err();
        }
        if (!*start) {
            continue;
        }
        file_batch_reader reader(seg.log_file(), (*start)->position, seg.size_bytes());
        bytes control;
        for (;;) {
            auto b = reader.next();
            if (!b) {
                return b.err();
            }
            if (!*b) {
                break;
            }
            const auto& h = (*b)->header;
            if (h.base_offset >= to) {
                return {};
            }
            if (h.base_offset < from || !h.has_producer_id()) {
                continue;
            }
            bytes_view batch;
            if (h.is_control()) {
                // Markers are rare: read their bytes directly.
                control.resize(h.size_bytes());
                auto n = seg.log_file().pread_full(control.data(), control.size(), (*b)->position);
                if (!n) {
                    return n.err();
                }
                batch = bytes_view(control.data(), *n);
            }
            producer_append a;
            if (auto s = _producers.prepare_batch(a, h, batch, record::append_origin::replication);
                !s) {
                return s;
            }
            auto completed = a.completed;
            _producers.commit(std::move(a), h.last_offset() + 1);
            if (!completed.empty()) {
                // Recovery may have lost what the crash did not sync.
                if (auto s = index_aborted_transactions(completed); !s) {
                    return s;
                }
            }
        }
    }
    return {};
}

status log::snapshot_producer_state_at(int64_t offset) {
    _producers.update_map_end_offset(offset);
    // Written without fsync on the caller's thread (a reactor, at a roll); the
    // next background flush syncs it. A torn snapshot after a machine crash is
    // detected by its CRC and the log replayed instead.
    return _producers.take_snapshot(false);
}

status log::index_aborted_transactions(const std::vector<completed_txn>& completed) {
    for (const auto& t : completed) {
        if (!t.aborted) {
            continue;
        }
        auto it = _segments.upper_bound(t.last_offset);
        if (it == _segments.begin()) {
            continue;
        }
        --it;
        aborted_txn entry{t.producer_id, t.first_offset, t.last_offset,
                          _producers.last_stable_offset_after(t)};
        if (auto s = it->second->append_aborted_txn(entry); !s) {
            return s;
        }
    }
    return {};
}

std::vector<aborted_txn> log::aborted_transactions(int64_t from, int64_t upper) const {
    std::vector<aborted_txn> out;
    auto it = _segments.upper_bound(from);
    if (it != _segments.begin()) {
        --it;
    }
    // A transaction aborted in a later segment may have started before `from`,
    // so every later segment's index is consulted (each is small: markers only).
    for (; it != _segments.end(); ++it) {
        it->second->txn_index().collect(from, upper, out);
    }
    return out;
}

size_t log::remove_expired_producers(int64_t now_ms) {
    return _producers.remove_expired_producers(now_ms);
}

}  // namespace samsa::storage
