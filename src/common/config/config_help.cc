#include "common/config/config_help.h"

#include <fmt/format.h>

#include "common/config/broker_config_def.h"
#include "common/config/topic_config.h"

namespace samsa::config {

namespace {

std::string default_text(const config_key& k) {
    switch (k.def.k) {
        case default_value::kind::required:
            return "(required)";
        case default_value::kind::null:
            return "null";
        case default_value::kind::value:
            break;
    }
    if (k.sensitive()) {
        return "[hidden]";
    }
    return k.def.raw.empty() ? "\"\"" : k.def.raw;
}

}  // namespace

std::string format_config_help(
    const config_def& def,
    const std::function<std::optional<std::string>(std::string_view)>& server_default) {
    std::string out;
    for (const config_key* k : def.sorted_keys()) {
        out += fmt::format("{}\n", k->name);
        out += fmt::format("    {}\n", k->doc);
        out += fmt::format("    Type: {}\n", type_name(k->type));
        out += fmt::format("    Default: {}\n", default_text(*k));
        if (!k->valid.description().empty()) {
            out += fmt::format("    Valid Values: {}\n", k->valid.description());
        }
        if (server_default) {
            if (auto s = server_default(k->name)) {
                out += fmt::format("    Server Default Property: {}\n", *s);
            }
        }
        out += fmt::format("    Importance: {}\n", importance_name(k->imp));
        if (!server_default) {
            out += fmt::format("    Update Mode: {}\n", update_mode_name(k->mode));
        }
        out += "\n";
    }
    return out;
}

std::string broker_and_topic_config_help() {
    std::string out = "Broker configuration (server.properties, --override key=value)\n\n";
    out += format_config_help(broker_config_def());
    out +=
        "Topic configuration (kafka-topics.sh --config, kafka-configs.sh --entity-type topics)\n\n";
    out += format_config_help(topic_config_def(), topic_broker_synonym);
    return out;
}

}  // namespace samsa::config
