#pragma once
// UpdateFeatures (key 57, v0-2, KIP-584): ALTER on the cluster, then forwarded
// to the active controller (metadata/feature_update.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler update_features_handler();

}  // namespace samsa::server::handlers
