#pragma once
// The text of `samsa server --help-config`: every key of a definition table, sorted
// by name, with its type, default, valid values, importance, update mode and doc —
// the columns of Kafka's configuration docs.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/config/config_def.h"

namespace samsa::config {

// `server_default` (optional) names the broker key a topic key falls back to; it is
// printed as "Server Default Property".
std::string format_config_help(
    const config_def& def,
    const std::function<std::optional<std::string>(std::string_view)>& server_default = {});

// Broker keys, then topic keys, under headings.
std::string broker_and_topic_config_help();

}  // namespace samsa::config
