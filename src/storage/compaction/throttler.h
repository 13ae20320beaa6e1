#pragma once
// throttler: log.cleaner.io.max.bytes.per.second. The cleaner reports the
// bytes it reads and writes; whenever they run ahead of the rate since the
// throttler was made, it sleeps until they no longer do, so a cleaning never
// averages above the rate, its last bytes included.
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
    clock::time_point _start = clock::now();
    int64_t _bytes = 0;
    std::chrono::milliseconds _slept{0};
};

}  // namespace samsa::storage::compaction
