#include "metadata/config_alteration.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "common/config/broker_config.h"
#include "common/config/broker_config_def.h"
#include "common/config/group_config.h"
#include "common/config/topic_config.h"
#include "metadata/topic_name.h"

namespace samsa::metadata {

namespace {

using config_map = std::map<std::string, std::string>;

struct resource_key {
    int8_t type;
    std::string name;
    auto operator<=>(const resource_key&) const = default;
};

// Checks the resource itself; the image's current configs for it.
result<config_map> current_configs(const controller_state& s, const resource_key& r) {
    switch (config_resource_type(r.type)) {
        case config_resource_type::topic: {
            if (r.name.empty()) {
                return error(error_code::invalid_request,
                             "Default topic resources are not allowed.");
            }
            if (auto v = validate_topic_name(r.name); !v) {
                return v.err();
            }
            if (!s.image.topic(r.name)) {
                return error(error_code::unknown_topic_or_partition,
                             fmt::format("The topic '{}' does not exist.", r.name));
            }
            auto it = s.image.topic_configs.find(r.name);
            return it == s.image.topic_configs.end() ? config_map{} : it->second;
        }
        case config_resource_type::broker: {
            if (!r.name.empty()) {
                int32_t id = 0;
                auto [p, ec] = std::from_chars(r.name.data(), r.name.data() + r.name.size(), id);
                if (ec != std::errc() || p != r.name.data() + r.name.size()) {
                    return error(error_code::invalid_request,
                                 "Unable to parse broker name as a base 10 number.");
                }
                if (id < 0) {
                    return error(error_code::invalid_request, "Invalid negative broker ID.");
                }
            }
            auto it = s.image.broker_configs.find(r.name);
            return it == s.image.broker_configs.end() ? config_map{} : it->second;
        }
        case config_resource_type::group: {
            if (r.name.empty()) {
                return error(error_code::invalid_request,
                             "Default group resources are not allowed.");
            }
            auto it = s.image.group_configs.find(r.name);
            return it == s.image.group_configs.end() ? config_map{} : it->second;
        }
        default:
            return error(error_code::invalid_request,
                         fmt::format("Unknown resource type {}", r.type));
    }
}

// "topic", "broker", "group": as Kafka's messages name a resource type.
const char* type_word(const resource_key& r) {
    switch (config_resource_type(r.type)) {
        case config_resource_type::topic:
            return "topic";
        case config_resource_type::group:
            return "group";
        default:
            return "broker";
    }
}

const config::config_def& definition_of(const resource_key& r) {
    switch (config_resource_type(r.type)) {
        case config_resource_type::topic:
            return config::topic_config_def();
        case config_resource_type::group:
            return config::group_config_def();
        default:
            return config::broker_config_def();
    }
}

// The whole new set of dynamic configs of the resource, checked as Kafka
// checks it before recording anything.
status validate_configs(const controller_state& s, const resource_key& r, const config_map& next) {
    if (config_resource_type(r.type) == config_resource_type::topic) {
        if (auto v = config::validate_topic_overrides(next); !v) {
            return v;
        }
        auto resolved = config::resolve_topic_config(next, s.broker);
        return resolved ? status{} : status(resolved.err());
    }
    if (config_resource_type(r.type) == config_resource_type::group) {
        return config::validate_group_configs(next, s.broker);
    }
    for (const auto& [key, value] : next) {
        // listener.name.<listener>.<key>: a key one listener overrides (ssl.*).
        const auto base = config::config_set::listener_override_base(key);
        if (!config::broker_config_def().find(base ? *base : std::string_view(key))) {
            return error(error_code::invalid_config,
                         fmt::format("Unknown broker config name: {}", key));
        }
    }
    const bool cluster_default = r.name.empty();
    const bool this_broker = r.name == std::to_string(s.static_config.node_id);
    config::config_set values = s.broker;
    auto report = values.set_layer(cluster_default ? config::config_layer::dynamic_cluster_default
                                                   : config::config_layer::dynamic_broker,
                                   next);
    if (!report.ok()) {
        return error(error_code::invalid_config, report.error_summary());
    }
    // Cross-key rules apply where the change takes effect here: this broker's
    // own layer, or the cluster defaults it inherits.
    if (cluster_default || this_broker) {
        if (auto built = config::build_broker_config(values); !built) {
            return error(error_code::invalid_config, built.err().message);
        }
    }
    return {};
}

void record_changes(const resource_key& r, const config_map& current, const config_map& next,
                    std::vector<metadata_record>& records) {
    auto add = [&](const std::string& key, std::optional<std::string> value) {
        protocol::config_record c;
        c.resource_type = r.type;
        c.resource_name = r.name;
        c.name = key;
        c.value = std::move(value);
        records.emplace_back(std::move(c));
    };
    for (const auto& [key, value] : next) {
        auto it = current.find(key);
        if (it == current.end() || it->second != value) {
            add(key, value);
        }
    }
    for (const auto& [key, value] : current) {
        if (!next.count(key)) {
            add(key, std::nullopt);
        }
    }
}

// APPEND / SUBTRACT on a LIST key: the current value (or the key's default)
// with the given elements added (once) or removed.
result<std::string> combine_list(const resource_key& r, const config_map& current,
                                 const std::string& key, alter_config_op op,
                                 const std::string& value) {
    const config::config_key* k = definition_of(r).find(key);
    const char* verb = op == alter_config_op::append ? "APPEND" : "SUBTRACT";
    if (!k) {
        return error(error_code::invalid_config,
                     fmt::format("Unknown {} config name: {}", type_word(r), key));
    }
    if (k->type != config::config_type::list) {
        return error(error_code::invalid_config,
                     fmt::format("Can't {} to key {} because its type is not LIST.", verb, key));
    }
    auto it = current.find(key);
    std::string base = it != current.end()                              ? it->second
                       : k->def.k == config::default_value::kind::value ? k->def.raw
                                                                        : std::string();
    auto parse = [&](const std::string& raw) -> config::list_value {
        auto v = config::parse_value(config::config_type::list, raw);
        return v ? std::get<config::list_value>(*v) : config::list_value{};
    };
    config::list_value items = parse(base);
    items.erase(std::remove(items.begin(), items.end(), std::string()), items.end());
    for (const auto& e : parse(value)) {
        auto pos = std::find(items.begin(), items.end(), e);
        if (op == alter_config_op::append && pos == items.end()) {
            items.push_back(e);
        } else if (op == alter_config_op::subtract && pos != items.end()) {
            items.erase(pos);
        }
    }
    return config::value_to_string(config::config_value(items));
}

template <typename Response>
void answer(Response& resp, const resource_key& r, const status& st) {
    auto& out = resp.responses.emplace_back();
    out.resource_type = r.type;
    out.resource_name = r.name;
    out.error_code = to_wire(st.code());
    out.error_message =
        st || st.err().message.empty() ? std::nullopt : std::optional(st.err().message);
}

// Resources named more than once are refused, each once (Kafka's ControllerApis).
template <typename Resources>
std::set<resource_key> duplicates(const Resources& resources) {
    std::set<resource_key> seen;
    std::set<resource_key> dup;
    for (const auto& r : resources) {
        resource_key k{r.resource_type, r.resource_name};
        if (!seen.insert(k).second) {
            dup.insert(k);
        }
    }
    return dup;
}

}  // namespace

controller_plan<protocol::incremental_alter_configs_response> plan_incremental_alter_configs(
    const controller_state& s, const protocol::incremental_alter_configs_request& request) {
    controller_plan<protocol::incremental_alter_configs_response> plan;
    const auto dup = duplicates(request.resources);
    std::set<resource_key> answered;
    for (const auto& res : request.resources) {
        resource_key r{res.resource_type, res.resource_name};
        if (!answered.insert(r).second) {
            continue;
        }
        if (dup.count(r)) {
            answer(plan.response, r,
                   error(error_code::invalid_request, "Each resource must appear at most once."));
            continue;
        }
        auto current = current_configs(s, r);
        if (!current) {
            answer(plan.response, r, current.err());
            continue;
        }
        config_map next = *current;
        status st;
        std::set<std::string> keys;
        for (const auto& c : res.configs) {
            if (!keys.insert(c.name).second) {
                st = error(error_code::invalid_request, "Error due to duplicate config keys");
                break;
            }
            auto op = alter_config_op(c.config_operation);
            if (op == alter_config_op::set) {
                if (!c.value) {
                    st = error(error_code::invalid_request,
                               fmt::format("Null value not supported for : {}", c.name));
                    break;
                }
                next[c.name] = *c.value;
            } else if (op == alter_config_op::del) {
                next.erase(c.name);
            } else if (op == alter_config_op::append || op == alter_config_op::subtract) {
                auto combined = combine_list(r, next, c.name, op, c.value.value_or(""));
                if (!combined) {
                    st = combined.err();
                    break;
                }
                next[c.name] = *combined;
            } else {
                st = error(error_code::invalid_request,
                           fmt::format("Unknown alter config operation {} for key {}",
                                       c.config_operation, c.name));
                break;
            }
        }
        if (st) {
            st = validate_configs(s, r, next);
        }
        if (st && !request.validate_only) {
            record_changes(r, *current, next, plan.records);
        }
        answer(plan.response, r, st);
    }
    return plan;
}

controller_plan<protocol::alter_configs_response> plan_alter_configs(
    const controller_state& s, const protocol::alter_configs_request& request) {
    controller_plan<protocol::alter_configs_response> plan;
    const auto dup = duplicates(request.resources);
    std::set<resource_key> answered;
    for (const auto& res : request.resources) {
        resource_key r{res.resource_type, res.resource_name};
        if (!answered.insert(r).second) {
            continue;
        }
        if (dup.count(r)) {
            answer(plan.response, r,
                   error(error_code::invalid_request, "Each resource must appear at most once."));
            continue;
        }
        auto current = current_configs(s, r);
        if (!current) {
            answer(plan.response, r, current.err());
            continue;
        }
        config_map next;
        status st;
        for (const auto& c : res.configs) {
            if (!c.value) {
                st = error(error_code::invalid_request,
                           fmt::format("Null value not supported for : {}", c.name));
                break;
            }
            next[c.name] = *c.value;
        }
        if (st) {
            st = validate_configs(s, r, next);
        }
        if (st && !request.validate_only) {
            record_changes(r, *current, next, plan.records);
        }
        answer(plan.response, r, st);
    }
    return plan;
}

}  // namespace samsa::metadata
