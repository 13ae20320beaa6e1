#include "server/quota/request_quota.h"

#include <chrono>

namespace samsa::server::quota {

namespace {

// Rates are measured on the monotonic clock: a wall-clock jump must not
// empty or fill a client's windows.
int64_t monotonic_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

int32_t record_client_quota(const request_context& ctx, const metadata::metadata_image& image,
                            std::string_view key, double value) {
    auto* m = ctx.broker ? ctx.broker->client_quotas : nullptr;
    if (!m || image.client_quotas.empty()) {
        return 0;
    }
    return m->record(image, key, quota_user(ctx.principal), ctx.header.client_id.value_or(""),
                     value, monotonic_ms());
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

}  // namespace samsa::server::quota
