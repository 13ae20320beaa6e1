#include "storage/compaction/throttler.h"

#include <thread>

namespace samsa::storage::compaction {

void throttler::maybe_throttle(int64_t bytes, const std::atomic<bool>* stop) {
    _bytes += bytes;
    const auto due = _start + std::chrono::duration_cast<clock::duration>(
                                  std::chrono::duration<double>(double(_bytes) / _rate));
    auto now = clock::now();
    while (now < due && !(stop && stop->load())) {
        auto slice = std::min<clock::duration>(due - now, std::chrono::milliseconds(100));
        std::this_thread::sleep_for(slice);
        _slept += std::chrono::duration_cast<std::chrono::milliseconds>(slice);
        now = clock::now();
    }
}

}  // namespace samsa::storage::compaction
