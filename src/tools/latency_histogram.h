#pragma once
// An HDR-style latency histogram: constant memory, O(1) record, percentiles with
// a bounded relative error.
//
// Layout (log-linear buckets, S = 2^k_sub_bucket_bits):
//   values 0 .. S-1 each have their own bucket (exact);
//   above that, every power-of-two range [2^e, 2^(e+1)) is split into S/2 equal
//   buckets, so a bucket is never wider than 2/S of the values in it.
// With k_sub_bucket_bits = 8 a reported value is within 0.8% of a recorded one
// (rounded up: percentiles report the highest value of their bucket, clamped to
// the maximum recorded, as HdrHistogram's "highest equivalent value" does).
//
// Values are unit-free unsigned integers; the perf tools record microseconds.
// Not thread-safe: one writer, read after it stops (or under its lock).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace samsa::tools {

class latency_histogram {
  public:
    static constexpr int k_sub_bucket_bits = 8;

    latency_histogram();

    void record(uint64_t value, uint64_t count = 1);
    void merge(const latency_histogram& other);
    void reset();

    uint64_t count() const { return _count; }
    uint64_t min() const { return _count ? _min : 0; }
    uint64_t max() const { return _max; }
    double mean() const { return _count ? double(_sum) / double(_count) : 0.0; }

    // The smallest bucket value v such that at least `percentile`% of the recorded
    // values are <= v (0 when empty); percentile in [0, 100].
    uint64_t value_at_percentile(double percentile) const;

    // Exposed for tests: the bucket a value falls in, and that bucket's range.
    static size_t bucket_index(uint64_t value);
    static uint64_t bucket_lowest(size_t index);
    static uint64_t bucket_highest(size_t index);

  private:
    std::vector<uint64_t> _buckets;
    uint64_t _count = 0;
    uint64_t _sum = 0;  // wraps only past 2^64 us (half a million years) of total latency
    uint64_t _min = 0;
    uint64_t _max = 0;
};

}  // namespace samsa::tools
