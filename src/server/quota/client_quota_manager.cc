#include "server/quota/client_quota_manager.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/client_quotas.h"

namespace samsa::server::quota {

namespace {

// Kafka drops a client's quota sensors after an hour without use.
constexpr int64_t idle_rate_expiry_ms = 3600 * 1000;

const std::string user_type{samsa::quota::entity_user};
const std::string client_type{samsa::quota::entity_client_id};

}  // namespace

std::string quota_user(std::string_view principal) {
    constexpr std::string_view prefix = "User:";
    if (principal.starts_with(prefix)) {
        principal.remove_prefix(prefix.size());
    }
    return std::string(principal);
}

std::optional<applied_quota> find_client_quota(const metadata::metadata_image& image,
                                               std::string_view key, const std::string& user,
                                               const std::string& client_id) {
    if (image.client_quotas.empty()) {
        return std::nullopt;
    }
    using name = std::optional<std::string>;
    struct level {
        std::optional<name> user;  // nullopt: the entity has no user type
        std::optional<name> client;
        bool keeps_user;
        bool keeps_client;
    };
    const name u = user, c = client_id, any = std::nullopt;
    const level levels[] = {
        {u, c, true, true},
        {u, any, true, true},
        {u, std::nullopt, true, false},
        {any, c, true, true},
        {any, any, true, true},
        {any, std::nullopt, true, false},
        {std::nullopt, c, false, true},
        {std::nullopt, any, false, true},
    };
    for (const auto& l : levels) {
        metadata::client_quota_entity entity;
        if (l.user) {
            entity[user_type] = *l.user;
        }
        if (l.client) {
            entity[client_type] = *l.client;
        }
        auto it = image.client_quotas.find(entity);
        if (it == image.client_quotas.end()) {
            continue;
        }
        auto v = it->second.find(std::string(key));
        if (v == it->second.end()) {
            continue;
        }
        return applied_quota{v->second, l.keeps_user ? user : std::string(),
                             l.keeps_client ? client_id : std::string()};
    }
    return std::nullopt;
}

client_quota_manager::client_quota_manager(int samples, int64_t window_ms)
    : _samples(samples), _window_ms(window_ms) {}

int32_t client_quota_manager::record(const metadata::metadata_image& image, std::string_view key,
                                     const std::string& user, const std::string& client_id,
                                     double value, int64_t now_ms) {
    auto q = find_client_quota(image, key, user, client_id);
    if (!q || q->bound <= 0) {
        return 0;
    }
    std::lock_guard lock(_mu);
    expire_idle(now_ms);
    auto [it, fresh] = _rates.try_emplace({std::string(key), q->user, q->client_id},
                                          tracked{sampled_rate(_samples, _window_ms), now_ms});
    auto& t = it->second;
    t.last_used_ms = now_ms;
    t.rate.record(value, now_ms);
    const double rate = t.rate.measure(now_ms);
    if (rate <= q->bound) {
        return 0;
    }
    const double throttle =
        std::round((rate - q->bound) / q->bound * double(t.rate.window_size(now_ms)));
    return int32_t(std::min(throttle, double(std::numeric_limits<int32_t>::max())));
}

std::optional<int64_t> client_quota_manager::max_value_in_window(
    const metadata::metadata_image& image, std::string_view key, const std::string& user,
    const std::string& client_id) const {
    auto q = find_client_quota(image, key, user, client_id);
    if (!q || q->bound <= 0) {
        return std::nullopt;
    }
    const double most =
        q->bound * double(std::max(_samples - 1, 1)) * (double(_window_ms) / 1000.0);
    return int64_t(std::min(most, double(std::numeric_limits<int32_t>::max())));
}

size_t client_quota_manager::rates() const {
    std::lock_guard lock(_mu);
    return _rates.size();
}

void client_quota_manager::expire_idle(int64_t now_ms) {
    if (now_ms - _last_expiry_ms < 60 * 1000) {
        return;
    }
    _last_expiry_ms = now_ms;
    std::erase_if(_rates, [&](const auto& kv) {
        return now_ms - kv.second.last_used_ms >= idle_rate_expiry_ms;
    });
}

}  // namespace samsa::server::quota
