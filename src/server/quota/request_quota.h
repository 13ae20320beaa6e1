#pragma once
// The client quota a request counts against (server/quota/client_quota_manager.h),
// as the Produce and Fetch handlers ask for it: the user from the request's
// principal, the client id from its header.
#include <optional>
#include <string_view>

#include "server/quota/client_quota_manager.h"
#include "server/request_context.h"

namespace samsa::server::quota {

// Records `value` (bytes) against the quota `key` of the request's client;
// the throttle time in milliseconds, 0 without a quota.
int32_t record_client_quota(const request_context& ctx, const metadata::metadata_image& image,
                            std::string_view key, double value);

// The most bytes one response may carry for the request's client (Kafka caps
// a throttled consumer's fetch so); nullopt without a quota.
std::optional<int64_t> client_quota_window(const request_context& ctx,
                                           const metadata::metadata_image& image,
                                           std::string_view key);

}  // namespace samsa::server::quota
