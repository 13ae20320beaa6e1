// log: flushing and group commit.
//
// A flush job captures the segments holding [recovery point, target), the
// producer snapshots written since the last flush and, if a file was created
// since then, the directory; it runs on the blocking_executor (a background
// pool), which fdatasyncs them, and completes on the owner's shard: the
// recovery point moves to the target and every waiter at or below it is
// called. At most one job is in flight; waiters that arrive meanwhile are all
// covered by the next job, which targets the LEO at the time it starts — that
// is the group commit: one fdatasync per round, not one per append.
//
// A truncation while a job is in flight lowers what the job may claim: the
// bytes it synced above the truncation point are gone, and new bytes appended
// there are not synced by it.
#include <fcntl.h>

#include <limits>
#include <utility>

#include "storage/log.h"

namespace samsa::storage {

namespace {

struct flush_job {
    std::vector<std::shared_ptr<log_segment>> segments;
    std::vector<std::string> snapshots;  // producer snapshots written unsynced
    std::string dir;
    bool sync_dir = false;

    status run() const {
        for (const auto& seg : segments) {
            if (auto s = seg->flush(); !s) {
                return s;
            }
        }
        for (const auto& path : snapshots) {
            // Gone already (a truncation or retention deleted it): nothing to sync.
            auto f = file_handle::open(path, O_RDONLY);
            if (!f) {
                continue;
            }
            if (auto s = f->datasync(); !s) {
                return s;
            }
        }
        return sync_dir || !snapshots.empty() ? fsync_dir(dir) : status();
    }
};

}  // namespace

bool log::flush_wanted() const {
    if (_failure || _recovery_point >= _log_end_offset) {
        return false;
    }
    return !_waiters.empty() || _unflushed_messages >= _config.flush_messages;
}

void log::start_flush(int64_t up_to) {
    flush_job job;
    job.dir = _dir;
    job.sync_dir = _dir_dirty;
    job.snapshots = _producers.take_unsynced_snapshots();
    _dir_dirty = false;
    for (const auto& [base, seg] : _segments) {
        if (seg->next_offset() > _recovery_point && base < up_to) {
            job.segments.push_back(seg);
        }
    }
    _flush_in_flight = true;
    _truncated_to = std::numeric_limits<int64_t>::max();
    _unflushed_messages = 0;
    _last_flush_ms = _now_ms;
    std::weak_ptr<log> weak = weak_from_this();
    _executor([job = std::move(job)] { return job.run(); },
              [weak, up_to](status s) {
                  if (auto self = weak.lock()) {
                      self->on_flush_done(up_to, std::move(s));
                  }
              });
}

void log::on_flush_done(int64_t up_to, status s) {
    _flush_in_flight = false;
    if (_closed) {
        return;
    }
    if (!s) {
        // fsync failures are not retried (the kernel may have dropped the dirty
        // pages): the log fails, as Kafka takes the log dir offline.
        (void)fail(s.err());
        return;
    }
    int64_t durable = std::min({up_to, _truncated_to, _log_end_offset});
    if (durable > _recovery_point) {
        set_recovery_point(durable);
    }
    complete_waiters();
    if (_after_flush) {
        auto hook = std::move(_after_flush);
        _after_flush = nullptr;
        hook();  // may close this log (a log dir move's swap)
        if (_closed) {
            return;
        }
    }
    if (flush_wanted() && !_flush_in_flight) {
        start_flush(_log_end_offset);
    }
}

void log::after_flush(std::function<void()> hook) {
    if (_failure) {
        return;
    }
    if (!_flush_in_flight) {
        hook();
        return;
    }
    _after_flush = std::move(hook);
}

std::multimap<int64_t, flush_callback> log::take_waiters() {
    return std::exchange(_waiters, {});
}

void log::enable_background_flush() {
    _background_flush = true;
    if (!_failure && !_flush_in_flight && _recovery_point < _log_end_offset) {
        start_flush(_log_end_offset);
    }
}

void log::complete_waiters() {
    std::vector<flush_callback> ready;
    while (!_waiters.empty() && _waiters.begin()->first < _recovery_point) {
        ready.push_back(std::move(_waiters.begin()->second));
        _waiters.erase(_waiters.begin());
    }
    for (auto& cb : ready) {
        cb(status());
    }
}

void log::fail_waiters_from(int64_t offset, const error& e) {
    std::vector<flush_callback> failed;
    for (auto it = _waiters.lower_bound(offset); it != _waiters.end();) {
        failed.push_back(std::move(it->second));
        it = _waiters.erase(it);
    }
    for (auto& cb : failed) {
        cb(e);
    }
}

void log::when_durable(int64_t offset, flush_callback cb) {
    if (_failure) {
        cb(*_failure);
        return;
    }
    if (offset < _recovery_point) {
        cb(status());
        return;
    }
    if (offset >= _log_end_offset) {
        cb(error{error_code::invalid_request,
                 "offset " + std::to_string(offset) + " is not in the log yet"});
        return;
    }
    _waiters.emplace(offset, std::move(cb));
    if (!_flush_in_flight) {
        start_flush(_log_end_offset);
    }
}

void log::flush_if_due(int64_t now_ms) {
    _now_ms = std::max(_now_ms, now_ms);
    if (_failure || _flush_in_flight || _recovery_point >= _log_end_offset) {
        return;
    }
    if (now_ms - _last_flush_ms >= _config.flush_ms) {
        start_flush(_log_end_offset);
    }
}

status log::flush() {
    if (_failure) {
        return *_failure;
    }
    flush_job job;
    job.dir = _dir;
    job.sync_dir = _dir_dirty;
    job.snapshots = _producers.take_unsynced_snapshots();
    for (const auto& [base, seg] : _segments) {
        if (seg->next_offset() > _recovery_point) {
            job.segments.push_back(seg);
        }
    }
    if (auto s = job.run(); !s) {
        return fail(s.err());
    }
    _dir_dirty = false;
    _unflushed_messages = 0;
    set_recovery_point(_log_end_offset);
    complete_waiters();
    return {};
}

}  // namespace samsa::storage
