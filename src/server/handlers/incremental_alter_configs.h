#pragma once
// IncrementalAlterConfigs (key 44, v0-1): SET / DELETE / APPEND / SUBTRACT on
// the dynamic configs of topics and brokers through the controller
// (metadata/config_alteration.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler incremental_alter_configs_handler();

}  // namespace samsa::server::handlers
