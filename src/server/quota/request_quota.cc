#include "server/quota/request_quota.h"

#include <algorithm>

#include "common/client_quotas.h"
#include "common/clock.h"

namespace samsa::server::quota {

namespace {

constexpr int16_t k_write_txn_markers_key = 27;

}  // namespace

int32_t record_client_quota(const request_context& ctx, const metadata::metadata_image& image,
                            std::string_view key, double value) {
    auto* m = ctx.broker ? ctx.broker->client_quotas : nullptr;
    if (!m || image.client_quotas.empty()) {
        return 0;
    }
    return m->record(image, key, quota_user(ctx.principal), ctx.header.client_id.value_or(""),
                     value, steady_clock_ms());
}

std::optional<int64_t> client_quota_window(const request_context& ctx,
                                           const metadata::metadata_image& image,
                                           std::string_view key) {
    auto* m = ctx.broker ? ctx.broker->client_quotas : nullptr;
    if (!m || image.client_quotas.empty()) {
        return std::nullopt;
    }
    return m->max_value_in_window(image, key, quota_user(ctx.principal),
                                  ctx.header.client_id.value_or(""));
}

int32_t record_request_time(const request_context& ctx) {
    auto* m = ctx.broker ? ctx.broker->client_quotas : nullptr;
    if (!m || !ctx.busy || ctx.controller_listener ||
        ctx.header.api_key == k_write_txn_markers_key) {
        return 0;
    }
    // Kafka's nanosToPercentage: a second of one thread is 100 (%) per second.
    const double percent_seconds = double(ctx.busy->elapsed_ns()) * 100.0 / 1e9;
    const auto image = ctx.broker->metadata.read();
    const int32_t throttle =
        m->record(*image, samsa::quota::request_percentage, quota_user(ctx.principal),
                  ctx.header.client_id.value_or(""), percent_seconds, steady_clock_ms());
    return int32_t(std::min<int64_t>(throttle, m->window_ms()));
}

}  // namespace samsa::server::quota
