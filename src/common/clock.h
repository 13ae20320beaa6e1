#pragma once
// Wall-clock milliseconds since the epoch, as Kafka's timestamps use; and
// monotonic milliseconds, for rates and deadlines a clock jump must not move.
#include <chrono>
#include <cstdint>

namespace samsa {

inline int64_t wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

inline int64_t steady_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace samsa
