#include "tools/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace samsa::tools {
namespace {

TEST(latency_histogram, empty_reports_zeroes) {
    latency_histogram h;
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.min(), 0u);
    EXPECT_EQ(h.max(), 0u);
    EXPECT_EQ(h.mean(), 0.0);
    EXPECT_EQ(h.value_at_percentile(50), 0u);
}

TEST(latency_histogram, small_values_are_exact) {
    latency_histogram h;
    for (uint64_t v = 1; v <= 100; ++v) {
        h.record(v);
    }
    EXPECT_EQ(h.count(), 100u);
    EXPECT_EQ(h.min(), 1u);
    EXPECT_EQ(h.max(), 100u);
    EXPECT_DOUBLE_EQ(h.mean(), 50.5);
    EXPECT_EQ(h.value_at_percentile(50), 50u);
    EXPECT_EQ(h.value_at_percentile(95), 95u);
    EXPECT_EQ(h.value_at_percentile(99), 99u);
    EXPECT_EQ(h.value_at_percentile(99.9), 100u);
    EXPECT_EQ(h.value_at_percentile(100), 100u);
    EXPECT_EQ(h.value_at_percentile(0), 1u);
}

TEST(latency_histogram, buckets_tile_the_value_range_without_gaps) {
    // Every bucket starts right after the previous one ends, up to 2^64-1.
    for (size_t i = 1; i < latency_histogram::bucket_index(UINT64_MAX); ++i) {
        ASSERT_EQ(latency_histogram::bucket_lowest(i), latency_histogram::bucket_highest(i - 1) + 1)
            << "bucket " << i;
    }
    EXPECT_EQ(latency_histogram::bucket_highest(latency_histogram::bucket_index(UINT64_MAX)),
              UINT64_MAX);
}

TEST(latency_histogram, values_fall_inside_their_bucket) {
    std::mt19937_64 rng(42);
    for (int i = 0; i < 100000; ++i) {
        uint64_t v = rng() >> (rng() % 64);
        size_t b = latency_histogram::bucket_index(v);
        ASSERT_LE(latency_histogram::bucket_lowest(b), v);
        ASSERT_GE(latency_histogram::bucket_highest(b), v);
    }
}

TEST(latency_histogram, percentiles_are_within_one_percent_of_exact) {
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> dist(8.0, 1.5);  // microseconds, a long tail
    std::vector<uint64_t> values;
    latency_histogram h;
    for (int i = 0; i < 200000; ++i) {
        auto v = uint64_t(dist(rng));
        values.push_back(v);
        h.record(v);
    }
    std::sort(values.begin(), values.end());
    for (double p : {50.0, 95.0, 99.0, 99.9}) {
        auto rank = size_t(std::ceil(p / 100.0 * double(values.size())));
        uint64_t exact = values[rank - 1];
        uint64_t got = h.value_at_percentile(p);
        EXPECT_GE(got, exact) << "p" << p;
        EXPECT_LE(double(got), double(exact) * 1.01 + 1) << "p" << p;
    }
    EXPECT_EQ(h.max(), values.back());
    EXPECT_EQ(h.min(), values.front());
}

TEST(latency_histogram, percentile_never_exceeds_the_maximum) {
    latency_histogram h;
    h.record(1000001);  // in a bucket wider than one value
    EXPECT_EQ(h.value_at_percentile(50), 1000001u);
    EXPECT_EQ(h.value_at_percentile(100), 1000001u);
}

TEST(latency_histogram, merge_adds_counts_and_extremes) {
    latency_histogram a, b;
    a.record(10, 3);
    b.record(5000);
    b.record(2);
    a.merge(b);
    EXPECT_EQ(a.count(), 5u);
    EXPECT_EQ(a.min(), 2u);
    EXPECT_EQ(a.max(), 5000u);
    EXPECT_DOUBLE_EQ(a.mean(), (30.0 + 5000.0 + 2.0) / 5.0);
    a.reset();
    EXPECT_EQ(a.count(), 0u);
    EXPECT_EQ(a.value_at_percentile(99), 0u);
}

}  // namespace
}  // namespace samsa::tools
