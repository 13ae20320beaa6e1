#pragma once
// AlterConfigs (key 33, v0-2): replaces the dynamic configs of topics and
// brokers through the controller (metadata/config_alteration.h).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler alter_configs_handler();

}  // namespace samsa::server::handlers
