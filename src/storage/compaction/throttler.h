#pragma once
// throttler: log.cleaner.io.max.bytes.per.second. The cleaner reports the
// bytes it reads and writes; once they run ahead of the rate over the current
// window, it sleeps the difference (Kafka's Throttler, checked every 300 ms).
#include <atomic>
#include <chrono>
#include <cstdint>

namespace samsa::storage::compaction {

class throttler {
  public:
    explicit throttler(double bytes_per_second) : _rate(bytes_per_second) {}

    // Counts `bytes`; may sleep, in slices, returning early once `stop` is set.
    void maybe_throttle(int64_t bytes, const std::atomic<bool>* stop = nullptr);
    // Total time slept so far.
    std::chrono::milliseconds slept() const { return _slept; }

  private:
    using clock = std::chrono::steady_clock;
    double _rate;
    clock::time_point _window_start = clock::now();
    int64_t _window_bytes = 0;
    std::chrono::milliseconds _slept{0};
};

}  // namespace samsa::storage::compaction
