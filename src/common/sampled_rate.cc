#include "common/sampled_rate.h"

#include <algorithm>

namespace samsa {

sampled_rate::sampled_rate(int samples, int64_t window_ms)
    : _samples(std::max(samples, 1)), _window_ms(std::max<int64_t>(window_ms, 1)) {}

void sampled_rate::record(double value, int64_t now_ms) {
    if (_all.empty()) {
        _all.push_back({now_ms, 0});
        _current = 0;
    }
    if (now_ms - _all[_current].start_ms >= _window_ms) {
        _current = (_current + 1) % size_t(_samples);
        if (_current >= _all.size()) {
            _all.push_back({now_ms, 0});
        } else {
            _all[_current] = {now_ms, 0};
        }
    }
    _all[_current].value += value;
}

void sampled_rate::purge_obsolete(int64_t now_ms) {
    const int64_t expire_age = int64_t(_samples) * _window_ms;
    for (auto& s : _all) {
        if (now_ms - s.start_ms >= expire_age) {
            s = {now_ms, 0};
        }
    }
}

int64_t sampled_rate::window_size(int64_t now_ms) {
    purge_obsolete(now_ms);
    if (_all.empty()) {
        _all.push_back({now_ms, 0});
        _current = 0;
    }
    int64_t oldest = _all.front().start_ms;
    for (const auto& s : _all) {
        oldest = std::min(oldest, s.start_ms);
    }
    int64_t elapsed = now_ms - oldest;
    const int64_t full = elapsed / _window_ms;
    const int64_t min_full = _samples - 1;
    if (full < min_full) {
        elapsed += (min_full - full) * _window_ms;
    }
    return std::max<int64_t>(elapsed, 1);
}

double sampled_rate::measure(int64_t now_ms) {
    const int64_t window = window_size(now_ms);
    double total = 0;
    for (const auto& s : _all) {
        total += s.value;
    }
    return total / (double(window) / 1000.0);
}

}  // namespace samsa
