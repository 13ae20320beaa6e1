#include "storage/compaction/throttler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>

namespace samsa::storage::compaction {
namespace {

TEST(throttler, holds_the_bytes_to_the_rate_including_the_last_ones) {
    throttler t(1'000'000);  // 1 MB/s
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 10; ++i) {
        t.maybe_throttle(20'000);  // 200 KB in all: at least 0.2 s
    }
    auto took = std::chrono::steady_clock::now() - start;
    // The rate holds however the time went: a loaded machine that keeps this
    // thread off the CPU (or oversleeps it) leaves less for the throttler to
    // sleep, so how long it slept is not asserted (it failed that way).
    EXPECT_GE(took, std::chrono::milliseconds(190));
}

TEST(throttler, an_unlimited_rate_never_sleeps) {
    throttler t(std::numeric_limits<double>::max());
    t.maybe_throttle(1LL << 40);
    EXPECT_EQ(t.slept().count(), 0);
}

TEST(throttler, stops_sleeping_once_asked_to_stop) {
    throttler t(1);
    std::atomic<bool> stop{true};
    t.maybe_throttle(1'000'000, &stop);
    EXPECT_EQ(t.slept().count(), 0);
}

}  // namespace
}  // namespace samsa::storage::compaction
