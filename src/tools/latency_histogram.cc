#include "tools/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace samsa::tools {

namespace {

constexpr uint64_t k_sub_buckets = uint64_t(1) << latency_histogram::k_sub_bucket_bits;
constexpr uint64_t k_half = k_sub_buckets / 2;
// Largest shift: values up to 2^64-1 have their top bit at 63.
constexpr size_t k_bucket_count =
    size_t(64 - latency_histogram::k_sub_bucket_bits + 1) * k_half + k_half;

}  // namespace

latency_histogram::latency_histogram() : _buckets(k_bucket_count, 0) {}

size_t latency_histogram::bucket_index(uint64_t value) {
    if (value < k_sub_buckets) {
        return size_t(value);
    }
    // Top bit at position >= k_sub_bucket_bits; keep k_sub_bucket_bits significant bits.
    int shift = (63 - std::countl_zero(value)) - k_sub_bucket_bits + 1;
    return size_t(shift) * k_half + size_t(value >> shift);
}

uint64_t latency_histogram::bucket_lowest(size_t index) {
    if (index < k_sub_buckets) {
        return index;
    }
    // index = shift * half + mantissa, mantissa in [half, 2*half).
    size_t shift = index / k_half - 1;
    uint64_t mantissa = index - shift * k_half;
    return mantissa << shift;
}

uint64_t latency_histogram::bucket_highest(size_t index) {
    if (index < k_sub_buckets) {
        return index;
    }
    size_t shift = index / k_half - 1;
    uint64_t low = bucket_lowest(index);
    return low + ((uint64_t(1) << shift) - 1);
}

void latency_histogram::record(uint64_t value, uint64_t count) {
    if (count == 0) {
        return;
    }
    _buckets[bucket_index(value)] += count;
    if (_count == 0 || value < _min) {
        _min = value;
    }
    _max = std::max(_max, value);
    _count += count;
    _sum += value * count;
}

void latency_histogram::merge(const latency_histogram& other) {
    if (other._count == 0) {
        return;
    }
    for (size_t i = 0; i < _buckets.size(); ++i) {
        _buckets[i] += other._buckets[i];
    }
    _min = _count == 0 ? other._min : std::min(_min, other._min);
    _max = std::max(_max, other._max);
    _count += other._count;
    _sum += other._sum;
}

void latency_histogram::reset() {
    std::fill(_buckets.begin(), _buckets.end(), 0);
    _count = _sum = _min = _max = 0;
}

uint64_t latency_histogram::value_at_percentile(double percentile) const {
    if (_count == 0) {
        return 0;
    }
    percentile = std::clamp(percentile, 0.0, 100.0);
    // Rank of the value wanted, 1-based: at least one value must be at or below it.
    auto rank = uint64_t(std::ceil(percentile / 100.0 * double(_count)));
    rank = std::clamp<uint64_t>(rank, 1, _count);
    uint64_t seen = 0;
    for (size_t i = 0; i < _buckets.size(); ++i) {
        seen += _buckets[i];
        if (seen >= rank) {
            return std::clamp(bucket_highest(i), _min, _max);
        }
    }
    return _max;
}

}  // namespace samsa::tools
