#include "storage/compaction/throttler.h"

#include <thread>

namespace samsa::storage::compaction {

void throttler::maybe_throttle(int64_t bytes, const std::atomic<bool>* stop) {
    constexpr auto check_interval = std::chrono::milliseconds(300);
    _window_bytes += bytes;
    auto now = clock::now();
    auto elapsed = now - _window_start;
    if (elapsed < check_interval) {
        return;
    }
    double seconds = std::chrono::duration<double>(elapsed).count();
    if (double(_window_bytes) / seconds > _rate) {
        auto wanted = std::chrono::duration<double>(double(_window_bytes) / _rate - seconds);
        auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(wanted);
        while (remaining.count() > 0 && !(stop && stop->load())) {
            auto slice = std::min(remaining, std::chrono::milliseconds(100));
            std::this_thread::sleep_for(slice);
            _slept += slice;
            remaining -= slice;
        }
    }
    _window_start = clock::now();
    _window_bytes = 0;
}

}  // namespace samsa::storage::compaction
