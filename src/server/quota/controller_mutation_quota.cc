#include "server/quota/controller_mutation_quota.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/client_quotas.h"
#include "common/clock.h"
#include "server/quota/client_quota_manager.h"

namespace samsa::server::quota {

namespace {

// Kafka's ControllerMutationQuotaManager.throttleTimeMs: the time the bucket
// takes to refill from `tokens` (below zero) to zero.
int32_t refill_time_ms(double tokens, double quota) {
    const double ms = std::round(-tokens / quota * 1000.0);
    return int32_t(std::clamp(ms, 0.0, double(std::numeric_limits<int32_t>::max())));
}

}  // namespace

controller_mutation_buckets::controller_mutation_buckets(int samples, int64_t window_ms)
    : _samples(samples), _window_ms(window_ms) {}

controller_mutation_buckets::bucket* controller_mutation_buckets::find(
    const metadata::metadata_image& image, const std::string& user, const std::string& client_id,
    double& quota, double& burst, int64_t now_ms) {
    auto q = find_client_quota(image, samsa::quota::controller_mutation_rate, user, client_id);
    if (!q || q->bound <= 0) {
        return nullptr;
    }
    quota = q->bound;
    burst = double(_samples) * (double(_window_ms) / 1000.0) * quota;
    if (now_ms - _last_expiry_ms >= 60 * 1000) {
        // Kafka drops a client's quota sensors after an hour without use; a
        // full bucket dropped is the same as one made again.
        _last_expiry_ms = now_ms;
        std::erase_if(_buckets,
                      [&](const auto& kv) { return now_ms - kv.second.last_ms >= 3600 * 1000; });
    }
    auto& b = _buckets[{q->user, q->client_id}];
    if (b.fresh) {
        b = bucket{burst, now_ms, false};  // a new bucket starts full
    }
    b.tokens = std::min(burst, b.tokens + quota * double(now_ms - b.last_ms) / 1000.0);
    b.last_ms = now_ms;
    return &b;
}

controller_mutation_buckets::outcome controller_mutation_buckets::take(
    const metadata::metadata_image& image, const std::string& user, const std::string& client_id,
    double permits, bool strict, int64_t now_ms) {
    if (image.client_quotas.empty()) {
        return {};
    }
    std::lock_guard lock(_mu);
    double quota = 0, burst = 0;
    bucket* b = find(image, user, client_id, quota, burst, now_ms);
    if (!b) {
        return {};
    }
    if (strict && b->tokens < 0) {
        return {false, refill_time_ms(b->tokens, quota)};
    }
    b->tokens = std::min(burst, b->tokens - permits);
    return {true, strict || b->tokens >= 0 ? 0 : refill_time_ms(b->tokens, quota)};
}

void controller_mutation_buckets::give_back(const metadata::metadata_image& image,
                                            const std::string& user, const std::string& client_id,
                                            double permits, int64_t now_ms) {
    std::lock_guard lock(_mu);
    double quota = 0, burst = 0;
    if (bucket* b = find(image, user, client_id, quota, burst, now_ms)) {
        b->tokens = std::min(burst, b->tokens + permits);
    }
}

controller_mutation_quota::controller_mutation_quota(const request_context& ctx,
                                                     int16_t strict_since_version)
    : _ctx(ctx),
      _buckets(ctx.broker && ctx.broker->metadata.has_client_quotas() ? ctx.broker->mutation_quotas
                                                                      : nullptr),
      _strict(ctx.header.api_version >= strict_since_version) {}

bool controller_mutation_quota::record(double permits) {
    if (!_buckets) {
        return true;
    }
    if (_strict && _throttle_ms > 0) {
        return false;  // Kafka's isExceeded: refused once, refused for the rest
    }
    const int64_t now = steady_clock_ms();
    const auto image = _ctx.broker->metadata.read();
    const auto got = _buckets->take(*image, quota_user(_ctx.principal),
                                    _ctx.header.client_id.value_or(""), permits, _strict, now);
    if (got.throttle_ms > 0) {
        _throttle_ms = got.throttle_ms;
        _recorded_at_ms = now;
    }
    return got.accepted;
}

error_code controller_mutation_quota::charge(const std::string& name, double permits) {
    if (!record(permits)) {
        return error_code::throttling_quota_exceeded;
    }
    if (_buckets && permits > 0) {
        _charged[name] += permits;
    }
    return error_code::none;
}

void controller_mutation_quota::give_back(const std::string& name) {
    auto it = _charged.find(name);
    if (it == _charged.end()) {
        return;
    }
    const auto image = _ctx.broker->metadata.read();
    _buckets->give_back(*image, quota_user(_ctx.principal), _ctx.header.client_id.value_or(""),
                        it->second, steady_clock_ms());
    _charged.erase(it);
}

int32_t controller_mutation_quota::throttle_ms() const {
    if (_throttle_ms == 0) {
        return 0;
    }
    return int32_t(std::max<int64_t>(0, _throttle_ms - (steady_clock_ms() - _recorded_at_ms)));
}

}  // namespace samsa::server::quota
