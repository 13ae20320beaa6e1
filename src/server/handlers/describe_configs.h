#pragma once
// DescribeConfigs (key 32, v0-4): topic configs (overrides over the broker's)
// and broker configs ("<this node id>": every key; "": the cluster-wide
// dynamic defaults), with sources, synonyms (v1+, include_synonyms),
// documentation (v3+, include_documentation) and types (v3+). Sensitive values
// are never returned.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_configs_handler();

}  // namespace samsa::server::handlers
