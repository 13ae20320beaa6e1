#pragma once
// The client quota a request counts against (server/quota/client_quota_manager.h),
// as the handlers ask for it: the user from the request's principal, the
// client id from its header.
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

// request_percentage (KIP-124): records the time the request has kept the
// broker's threads busy so far (request_context::busy) against its client's
// quota, as a percentage of one thread over the quota window; the throttle in
// milliseconds, at most one window (Kafka's ClientRequestQuotaManager).
// 0 without such a quota, and for the nodes' own requests (those on a
// controller listener, WriteTxnMarkers), which Kafka exempts as cluster
// actions; Produce with acks=0 and follower fetches do not call it.
int32_t record_request_time(const request_context& ctx);

}  // namespace samsa::server::quota
