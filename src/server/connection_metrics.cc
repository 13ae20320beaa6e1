// A connection's share of the request metrics (Kafka's RequestMetrics,
// docs/metrics.md): one count per request by api and version, and the time
// of each phase, into the reactor's own metrics block.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "common/metrics/thread_stats.h"
#include "protocol/generated/api_table.h"
#include "server/connection.h"

namespace samsa::server {

namespace {
using clock = std::chrono::steady_clock;

uint64_t micros(clock::time_point from, clock::time_point to) {
    return uint64_t(std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::microseconds>(to - from).count()));
}
}  // namespace

void connection::log_if_slow(const response_slot& slot, clock::time_point started,
                             clock::time_point answered, clock::time_point send_started,
                             clock::time_point now) const {
    const int64_t slow_ms = _broker.config ? _broker.config->log_slow_request_ms : 0;
    if (slow_ms > 0 && micros(slot.read_at, now) > uint64_t(slow_ms) * 1000) {
        logging::requests().warn(
            "event=slow_request api={} version={} correlation_id={} client_id=\"{}\" peer={} "
            "total_ms={:.1f} request_queue_ms={:.1f} local_ms={:.1f} response_queue_ms={:.1f} "
            "response_send_ms={:.1f}",
            protocol::api_name(slot.header.api_key), slot.header.api_version,
            slot.header.correlation_id, slot.header.client_id.value_or(""), _peer,
            micros(slot.read_at, now) / 1000.0, micros(slot.read_at, started) / 1000.0,
            micros(started, answered) / 1000.0, micros(answered, send_started) / 1000.0,
            micros(send_started, now) / 1000.0);
    }
}

void connection::record_request_metrics(const response_slot& slot,
                                        std::chrono::steady_clock::time_point send_started) const {
    if (slot.raw) {
        return;  // a bare SASL token, not a request
    }
    const auto now = clock::now();
    auto us = micros;
    // A request closed on before its handler ran has no later phases.
    const auto started = std::max(slot.read_at, slot.started_at);
    const auto answered = std::max(started, slot.answered_at);
    log_if_slow(slot, started, answered, send_started, now);
    if (!metrics::enabled()) {
        return;
    }
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
