// Kafka's Rate over sampled windows (common/sampled_rate.h), as the client
// quotas and the replication throttles measure bytes per second.
#include "common/sampled_rate.h"

#include <gtest/gtest.h>

namespace samsa {
namespace {

TEST(sampled_rate, divides_by_at_least_all_but_one_window) {
    sampled_rate r(11, 1000);
    r.record(1000, 0);
    EXPECT_EQ(r.window_size(0), 10000);
    EXPECT_DOUBLE_EQ(r.measure(0), 100.0);
    // Past ten full windows the elapsed time itself counts.
    r.record(1000, 12000);
    EXPECT_EQ(r.window_size(12000), 10000);  // the first sample has been reset
    EXPECT_DOUBLE_EQ(r.measure(12000), 100.0);
    // 3.5 s since the oldest sample, padded to ten windows: 10.5 s.
    r.record(2000, 15500);
    EXPECT_EQ(r.window_size(15500), 10500);
    EXPECT_DOUBLE_EQ(r.measure(15500), 3000.0 / 10.5);
    // At 23 s the samples from 12 s have aged out; 15.5 s is the oldest.
    EXPECT_EQ(r.window_size(23000), 10500);
    EXPECT_DOUBLE_EQ(r.measure(23000), 2000.0 / 10.5);
}

TEST(sampled_rate, samples_older_than_every_window_are_forgotten) {
    sampled_rate r(3, 1000);
    r.record(900, 0);
    r.record(900, 1000);
    r.record(900, 2000);
    EXPECT_DOUBLE_EQ(r.measure(2000), 2700.0 / 2.0);
    EXPECT_DOUBLE_EQ(r.measure(3500), 1800.0 / 2.5);  // the sample from 0 has expired
    EXPECT_DOUBLE_EQ(r.measure(60000), 0.0);
}

}  // namespace
}  // namespace samsa
