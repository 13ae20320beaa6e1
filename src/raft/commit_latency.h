#pragma once
// Kafka's raft-metrics commit-latency-avg and commit-latency-max: on the
// leader, the time from appending a batch to the high watermark passing it,
// over the last 30 s (Kafka's metrics window: two samples of
// metrics.sample.window.ms). Single-threaded, like raft_node; the quorum
// publishes the figures for a scrape.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

#include "raft/raft_types.h"

namespace samsa::raft {

class commit_latency {
  public:
    static constexpr raft_ms window{30000};
    static constexpr size_t max_samples = 4096;

    // The leader appended a batch whose last offset is `last`.
    void appended(raft_offset last, raft_time now) { _appended.emplace_back(last, now); }

    // The high watermark is now `hw`: every batch below it committed.
    void committed(raft_offset hw, raft_time now) {
        while (!_appended.empty() && _appended.front().first < hw) {
            _samples.emplace_back(now, (now - _appended.front().second).count());
            _appended.pop_front();
        }
        while (_samples.size() > max_samples) {
            _samples.pop_front();
        }
        expire(now);
    }

    // Leadership changed: what this node appended as leader no longer times.
    void reset_pending() { _appended.clear(); }

    // nullopt: nothing committed in the window.
    std::optional<double> average_ms(raft_time now) {
        expire(now);
        if (_samples.empty()) {
            return std::nullopt;
        }
        double sum = 0;
        for (const auto& s : _samples) {
            sum += double(s.second);
        }
        return sum / double(_samples.size());
    }
    std::optional<int64_t> max_ms(raft_time now) {
        expire(now);
        if (_samples.empty()) {
            return std::nullopt;
        }
        int64_t m = 0;
        for (const auto& s : _samples) {
            m = std::max(m, s.second);
        }
        return m;
    }

  private:
    void expire(raft_time now) {
        while (!_samples.empty() && now - _samples.front().first > window) {
            _samples.pop_front();
        }
    }

    std::deque<std::pair<raft_offset, raft_time>> _appended;
    std::deque<std::pair<raft_time, int64_t>> _samples;  // (when, latency ms)
};

}  // namespace samsa::raft
