#pragma once
// Pieces the perf verbs share: pacing to a target rate (Kafka's
// ThroughputThrottler), per-interval progress windows, the payload, and the
// small JSON summary written for scripts.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tools/latency_histogram.h"

namespace samsa::tools {

using perf_clock = std::chrono::steady_clock;

// Paces sends to `records_per_sec` from `start`; a rate <= 0 means unthrottled.
class throughput_throttler {
  public:
    throughput_throttler(double records_per_sec, perf_clock::time_point start)
        : _rate(records_per_sec), _start(start) {}

    // How long to wait before sending record number `sent` (zero: send now).
    std::chrono::nanoseconds wait_before(uint64_t sent, perf_clock::time_point now) const;

  private:
    double _rate;
    perf_clock::time_point _start;
};

// Counts for one reporting interval ("N records sent, X records/sec ...").
struct perf_window {
    perf_clock::time_point start;
    uint64_t count = 0;
    uint64_t bytes = 0;
    uint64_t latency_sum_us = 0;
    uint64_t latency_max_us = 0;

    void record(uint64_t bytes_, uint64_t latency_us) {
        ++count;
        bytes += bytes_;
        latency_sum_us += latency_us;
        latency_max_us = std::max(latency_max_us, latency_us);
    }
    double seconds(perf_clock::time_point now) const;
};

constexpr double k_bytes_per_mb = 1024.0 * 1024.0;  // Kafka's perf tools' "MB"

// Random upper-case letters, as kafka-producer-perf-test.sh sends.
std::string random_payload(size_t size);

// "yyyy-MM-dd HH:mm:ss:SSS" in local time (kafka-consumer-perf-test.sh's dates).
std::string perf_date(std::chrono::system_clock::time_point t);

// A flat JSON object writer: numbers and nested objects of numbers.
class json_object {
  public:
    json_object& add(const std::string& key, double value);
    json_object& add(const std::string& key, int64_t value);
    json_object& add(const std::string& key, const std::string& value);
    json_object& add(const std::string& key, const json_object& value);
    std::string str() const;

  private:
    std::vector<std::pair<std::string, std::string>> _fields;
};

// {"avg":..,"max":..,"p50":..,"p95":..,"p99":..,"p99_9":..} in milliseconds from
// a histogram of microseconds.
json_object latency_json(const latency_histogram& h);

}  // namespace samsa::tools
