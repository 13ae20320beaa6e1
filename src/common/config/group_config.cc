#include "common/config/group_config.h"

#include <fmt/format.h>

#include <optional>
#include <variant>

namespace samsa::config {

namespace {

constexpr const char* session_key = "consumer.session.timeout.ms";
constexpr const char* interval_key = "consumer.heartbeat.interval.ms";

// Each group key and the broker key giving its default.
struct group_key_default {
    const char* group_key;
    const char* broker_key;
};
constexpr group_key_default broker_defaults[] = {
    {session_key, "group.consumer.session.timeout.ms"},
    {interval_key, "group.consumer.heartbeat.interval.ms"},
};

config_def make_def() {
    config_def d;
    d.define({session_key, config_type::int32, "45000", validator::at_least(1), importance::medium,
              update_mode::cluster_wide,
              "The timeout to detect client failures when using the consumer group protocol."});
    d.define({interval_key, config_type::int32, "5000", validator::at_least(1), importance::medium,
              update_mode::cluster_wide,
              "The heartbeat interval given to the members of a consumer group."});
    return d;
}

error invalid(std::string message) {
    return error{error_code::invalid_config, std::move(message)};
}

// A key's value within [min, max] of the broker's bounds, with Kafka's words.
status within(const std::string& key, int64_t value, const config_set& broker, const char* min_key,
              const char* max_key) {
    if (value < broker.get_int(min_key)) {
        return invalid(fmt::format("{} must be greater than or equal to {}", key, min_key));
    }
    if (value > broker.get_int(max_key)) {
        return invalid(fmt::format("{} must be less than or equal to {}", key, max_key));
    }
    return {};
}

std::optional<int64_t> parsed_int(const std::string& key, const std::string& raw) {
    const config_key* k = group_config_def().find(key);
    if (!k) {
        return std::nullopt;
    }
    auto v = parse_config_value(*k, raw);
    const int64_t* n = v ? std::get_if<int64_t>(&*v) : nullptr;
    return n ? std::optional(*n) : std::nullopt;
}

}  // namespace

const config_def& group_config_def() {
    static const config_def def = make_def();
    return def;
}

status validate_group_configs(const std::map<std::string, std::string>& overrides,
                              const config_set& broker) {
    std::map<std::string, int64_t> values;
    for (const auto& d : broker_defaults) {
        values[d.group_key] = broker.get_int(d.broker_key);
    }
    for (const auto& [name, raw] : overrides) {
        const config_key* k = group_config_def().find(name);
        if (!k) {
            if (name.rfind("share.", 0) == 0) {
                return invalid(fmt::format(
                    "Group config {} is for share groups (KIP-932), which this broker does not "
                    "serve.",
                    name));
            }
            return invalid(fmt::format("Unknown group config name: {}", name));
        }
        auto v = parse_config_value(*k, raw);
        if (!v) {
            return v.err();
        }
        values[name] = std::get<int64_t>(*v);
    }
    const int64_t session = values[session_key];
    const int64_t interval = values[interval_key];
    if (auto s = within(interval_key, interval, broker, "group.consumer.min.heartbeat.interval.ms",
                        "group.consumer.max.heartbeat.interval.ms");
        !s) {
        return s;
    }
    if (auto s = within(session_key, session, broker, "group.consumer.min.session.timeout.ms",
                        "group.consumer.max.session.timeout.ms");
        !s) {
        return s;
    }
    if (session <= interval) {
        return invalid(fmt::format("{} must be greater than {}", session_key, interval_key));
    }
    return {};
}

group_config_values resolve_group_config(const std::map<std::string, std::string>& overrides,
                                         const group_config_values& defaults) {
    group_config_values out = defaults;
    auto take = [&](const char* key, int32_t& field) {
        auto it = overrides.find(key);
        if (it == overrides.end()) {
            return;
        }
        if (auto v = parsed_int(key, it->second)) {
            field = int32_t(*v);
        }
    };
    take(session_key, out.consumer_session_timeout_ms);
    take(interval_key, out.consumer_heartbeat_interval_ms);
    return out;
}

std::vector<topic_config_entry> describe_group_configs(
    const std::map<std::string, std::string>& overrides, const config_set& broker) {
    std::vector<topic_config_entry> out;
    for (const config_key* k : group_config_def().sorted_keys()) {
        topic_config_entry e;
        e.name = k->name;
        e.type = k->type;
        e.documentation = k->doc;
        auto it = overrides.find(k->name);
        if (it != overrides.end()) {
            e.value = it->second;
            e.source = config_source::group_config;
        } else {
            for (const auto& d : broker_defaults) {
                if (k->name == d.group_key) {
                    e.value = std::to_string(broker.get_int(d.broker_key));
                }
            }
            e.source = config_source::default_config;
        }
        e.synonyms.push_back({k->name, e.value, e.source});
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace samsa::config
