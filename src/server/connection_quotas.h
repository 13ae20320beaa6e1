#pragma once
// connection_quotas: how many client connections the broker holds, in all and
// per client address (Kafka's ConnectionQuotas): max.connections,
// max.connections.per.ip and max.connections.per.ip.overrides. A connection
// over a limit is closed as soon as it is accepted, with a log line. The
// controller listener is exempt: client load never locks the quorum out.
//
// It also bounds the requests read but not yet being processed, broker-wide
// (queued.max.requests): a connection stops reading new requests while the
// bound is reached, as Kafka's network threads stop when its request queue is
// full. A request leaves the count when its processing starts.
//
// Threading: every member may be called from any reactor.
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "common/result.h"

namespace samsa::server {

struct connection_limits {
    int32_t max_connections = INT32_MAX;
    int32_t max_connections_per_ip = INT32_MAX;
    std::map<std::string, int32_t> per_ip_overrides;  // address -> limit
    int32_t queued_max_requests = 500;
};

// "host:count,host:count" (max.connections.per.ip.overrides); INVALID_CONFIG
// naming the entry when it is not of that form.
result<std::map<std::string, int32_t>> parse_per_ip_overrides(const std::string& text);

class connection_quotas {
  public:
    explicit connection_quotas(connection_limits limits) : _limits(std::move(limits)) {}

    // A new connection from `address`: true when it may stay (it is then
    // counted until release()); false with the reason when over a limit.
    bool try_acquire(const std::string& address, std::string& why);
    void release(const std::string& address);

    // Requests read and not yet being processed, broker-wide.
    bool may_take_request() const {
        return _requests.load(std::memory_order_relaxed) < _limits.queued_max_requests;
    }
    void request_started() { _requests.fetch_add(1, std::memory_order_relaxed); }
    void request_done() { _requests.fetch_sub(1, std::memory_order_relaxed); }

    int32_t connections() const;
    int32_t connections_from(const std::string& address) const;

  private:
    int32_t limit_for(const std::string& address) const;

    const connection_limits _limits;
    mutable std::mutex _mutex;
    int32_t _total = 0;
    std::map<std::string, int32_t> _per_ip;
    std::atomic<int32_t> _requests{0};
};

}  // namespace samsa::server
