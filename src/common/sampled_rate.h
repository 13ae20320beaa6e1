#pragma once
// A rate over sampled windows, as Kafka's Rate over a SampledStat measures a
// client's bytes per second for its quota (quota.window.num samples of
// quota.window.size.seconds each) and replication's for its throttle
// (replication.quota.window.*). A sample starts when the first value after
// the previous one's window lands, not on a clock boundary; samples older
// than all windows together are reset; and the elapsed time a rate divides by
// is at least all but one window, so a client's first burst is not measured
// over a few milliseconds.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace samsa {

class sampled_rate {
  public:
    sampled_rate(int samples, int64_t window_ms);

    void record(double value, int64_t now_ms);
    // Per second.
    double measure(int64_t now_ms);
    // The milliseconds the rate divides by (Kafka's Rate.windowSize).
    int64_t window_size(int64_t now_ms);

  private:
    struct sample {
        int64_t start_ms;
        double value;
    };
    void purge_obsolete(int64_t now_ms);

    int _samples;
    int64_t _window_ms;
    std::vector<sample> _all;
    size_t _current = 0;
};

}  // namespace samsa
