#pragma once
// Prometheus' text exposition format, version 0.0.4: `# HELP`, `# TYPE`,
// then one line per sample, `name{label="value",...} number`.
//
//   prometheus_text out;
//   out.family("kafka_server_replicamanager_leadercount", "gauge", "Leaders on this broker");
//   out.sample("kafka_server_replicamanager_leadercount", {}, 3);
//   std::string body = out.take();
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/metrics/thread_stats.h"

namespace samsa::metrics {

using labels = std::vector<std::pair<std::string_view, std::string>>;

// A histogram summed over threads: per-bucket counts (not cumulative), as
// latency_histogram keeps them.
struct histogram_totals {
    std::array<uint64_t, k_bucket_ms.size() + 1> buckets{};
    uint64_t sum_us = 0;
    uint64_t count = 0;

    void add(const latency_histogram& h);
};

class prometheus_text {
  public:
    // Once per metric name, before its samples.
    void family(std::string_view name, std::string_view type, std::string_view help);
    void sample(std::string_view name, const labels& l, double value);
    // `name_bucket{le=...}` (cumulative), `name_sum` (in ms) and `name_count`.
    void histogram(std::string_view name, const labels& l, const histogram_totals& h);

    std::string take() { return std::move(_out); }

  private:
    void write_labels(const labels& l, std::string_view extra_name = {},
                      std::string_view extra_value = {});
    std::string _out;
};

// A label value with `\`, `"` and newlines escaped.
std::string escape_label_value(std::string_view v);

}  // namespace samsa::metrics
