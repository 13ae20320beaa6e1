#pragma once
// AlterClientQuotas (key 49, v0-1): ALTER_CONFIGS on the cluster, then
// forwarded to the active controller (metadata/client_quota_alteration.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler alter_client_quotas_handler();

}  // namespace samsa::server::handlers
