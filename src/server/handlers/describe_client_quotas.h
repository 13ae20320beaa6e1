#pragma once
// DescribeClientQuotas (key 48, v0-1): DESCRIBE_CONFIGS on the cluster, then
// the quotas matching the filter, from this broker's metadata image
// (metadata/client_quota_describe.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_client_quotas_handler();

}  // namespace samsa::server::handlers
