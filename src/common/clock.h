#pragma once
// Wall-clock milliseconds since the epoch, as Kafka's timestamps use.
#include <chrono>
#include <cstdint>

namespace samsa {

inline int64_t wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace samsa
