// A connection's share of the request metrics (Kafka's RequestMetrics,
// docs/metrics.md): one count per request by api and version, and the time
// of each phase, into the reactor's own metrics block.
#include <algorithm>

#include "common/metrics/thread_stats.h"
#include "server/connection.h"

namespace samsa::server {

void connection::record_request_metrics(const response_slot& slot,
                                        std::chrono::steady_clock::time_point send_started) const {
    if (slot.raw || !metrics::enabled()) {
        return;  // a bare SASL token is not a request
    }
    using clock = std::chrono::steady_clock;
    const auto now = clock::now();
    auto us = [](clock::time_point from, clock::time_point to) {
        return uint64_t(std::max<int64_t>(
            0, std::chrono::duration_cast<std::chrono::microseconds>(to - from).count()));
    };
    // A request closed on before its handler ran has no later phases.
    const auto started = std::max(slot.read_at, slot.started_at);
    const auto answered = std::max(started, slot.answered_at);
    auto& r = metrics::local().request(slot.header.api_key);
    r.requests[std::clamp<size_t>(size_t(std::max<int16_t>(0, slot.header.api_version)), 0,
                                  metrics::k_max_api_version - 1)]
        .add(1);
    using metrics::request_phase;
    auto observe = [&r](request_phase p, uint64_t v) { r.times[size_t(p)].observe_us(v); };
    observe(request_phase::request_queue, us(slot.read_at, started));
    observe(request_phase::local, us(started, answered));
    observe(request_phase::response_queue, us(answered, send_started));
    observe(request_phase::response_send, us(send_started, now));
    observe(request_phase::total, us(slot.read_at, now));
}

}  // namespace samsa::server
