#include "common/config/config_def.h"

#include <fmt/format.h>

#include <cassert>

namespace samsa::config {

std::string_view importance_name(importance i) {
    switch (i) {
        case importance::high:
            return "high";
        case importance::medium:
            return "medium";
        case importance::low:
            return "low";
    }
    return "unknown";
}

std::string_view update_mode_name(update_mode m) {
    switch (m) {
        case update_mode::read_only:
            return "read-only";
        case update_mode::per_broker:
            return "per-broker";
        case update_mode::cluster_wide:
            return "cluster-wide";
    }
    return "unknown";
}

result<config_value> parse_config_value(const config_key& key, std::string_view raw) {
    std::string shown = key.sensitive() ? "[hidden]" : std::string(raw);
    auto v = parse_value(key.type, raw);
    if (!v) {
        return error{error_code::invalid_config,
                     fmt::format("Invalid value {} for configuration {}: {}", shown, key.name,
                                 v.err().message)};
    }
    if (auto reason = key.valid.check(*v)) {
        return error{
            error_code::invalid_config,
            fmt::format("Invalid value {} for configuration {}: {}", shown, key.name, *reason)};
    }
    return v;
}

config_def& config_def::define(config_key key) {
    assert(_index.find(key.name) == _index.end() && "config key defined twice");
    _index.emplace(key.name, _keys.size());
    _keys.push_back(std::move(key));
    return *this;
}

const config_key* config_def::find(std::string_view name) const {
    auto it = _index.find(name);
    return it == _index.end() ? nullptr : &_keys[it->second];
}

std::vector<const config_key*> config_def::sorted_keys() const {
    std::vector<const config_key*> out;
    out.reserve(_index.size());
    for (const auto& [name, i] : _index) {
        out.push_back(&_keys[i]);
    }
    return out;
}

std::vector<std::string> config_def::check_definitions() const {
    std::vector<std::string> problems;
    for (const auto& k : _keys) {
        if (k.def.k != default_value::kind::value) {
            continue;
        }
        auto v = parse_config_value(k, k.def.raw);
        if (!v) {
            problems.push_back(fmt::format("default of {}: {}", k.name, v.err().message));
        }
    }
    return problems;
}

}  // namespace samsa::config
