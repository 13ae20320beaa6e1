#include "cluster/replication_quota.h"

#include <charconv>

namespace samsa::cluster {

replication_quota::replication_quota(int samples, int64_t window_ms) : _rate(samples, window_ms) {}

void replication_quota::set_bound(int64_t bytes_per_second) {
    _bound.store(bytes_per_second, std::memory_order_relaxed);
}

bool replication_quota::is_exceeded(int64_t now_ms) {
    const int64_t b = bound();
    if (b == unbounded) {
        return false;
    }
    std::lock_guard lock(_mu);
    return _rate.measure(now_ms) > double(b);
}

void replication_quota::record(int64_t bytes, int64_t now_ms) {
    if (bytes <= 0) {
        return;
    }
    std::lock_guard lock(_mu);
    _rate.record(double(bytes), now_ms);
}

double replication_quota::rate(int64_t now_ms) {
    std::lock_guard lock(_mu);
    return _rate.measure(now_ms);
}

bool replica_throttled(const std::vector<std::string>& list, int32_t partition, node_id node) {
    for (const auto& entry : list) {
        if (entry == "*") {
            return true;
        }
        // "partition:broker", as the topic config's validator accepts it.
        const auto colon = entry.find(':');
        if (colon == std::string::npos) {
            continue;
        }
        int32_t p = -1;
        int32_t b = -1;
        const char* s = entry.data();
        auto r1 = std::from_chars(s, s + colon, p);
        auto r2 = std::from_chars(s + colon + 1, s + entry.size(), b);
        if (r1.ec == std::errc{} && r2.ec == std::errc{} && p == partition && node_id{b} == node) {
            return true;
        }
    }
    return false;
}

}  // namespace samsa::cluster
