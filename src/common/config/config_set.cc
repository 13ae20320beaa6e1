#include "common/config/config_set.h"

#include <cctype>

#include <fmt/format.h>

#include <cassert>

namespace samsa::config {

namespace {

const config_value k_null_value{};

size_t index_of(config_layer l) {
    return static_cast<size_t>(l);
}

}  // namespace

std::string_view source_name(config_source s) {
    switch (s) {
        case config_source::unknown:
            return "UNKNOWN";
        case config_source::dynamic_topic_config:
            return "DYNAMIC_TOPIC_CONFIG";
        case config_source::dynamic_broker_config:
            return "DYNAMIC_BROKER_CONFIG";
        case config_source::dynamic_default_broker_config:
            return "DYNAMIC_DEFAULT_BROKER_CONFIG";
        case config_source::static_broker_config:
            return "STATIC_BROKER_CONFIG";
        case config_source::default_config:
            return "DEFAULT_CONFIG";
        case config_source::dynamic_broker_logger_config:
            return "DYNAMIC_BROKER_LOGGER_CONFIG";
        case config_source::client_metrics_config:
            return "DYNAMIC_CLIENT_METRICS_CONFIG";
        case config_source::group_config:
            return "DYNAMIC_GROUP_CONFIG";
    }
    return "UNKNOWN";
}

config_source source_of(config_layer l) {
    switch (l) {
        case config_layer::default_value:
            return config_source::default_config;
        case config_layer::static_file:
        case config_layer::static_override:
            return config_source::static_broker_config;
        case config_layer::dynamic_cluster_default:
            return config_source::dynamic_default_broker_config;
        case config_layer::dynamic_broker:
            return config_source::dynamic_broker_config;
    }
    return config_source::unknown;
}

std::string validation_report::error_summary() const {
    std::string out;
    for (const auto& e : errors) {
        if (!out.empty()) {
            out += "; ";
        }
        out += e.message;
    }
    return out;
}

void validation_report::merge(validation_report other) {
    for (auto& e : other.errors) {
        errors.push_back(std::move(e));
    }
    for (auto& w : other.warnings) {
        warnings.push_back(std::move(w));
    }
}

config_set::config_set(const config_def& def) : _def(&def) {
    auto& defaults = _layers[index_of(config_layer::default_value)];
    for (const auto& k : def.keys()) {
        if (k.def.k != default_value::kind::value) {
            continue;
        }
        // A default that does not parse is a bug in the table; check_definitions()
        // reports it and the key reads as null.
        auto v = parse_config_value(k, k.def.raw);
        defaults.emplace(k.name, stored{k.def.raw, v ? std::move(*v) : config_value{}});
    }
}

validation_report config_set::set_layer(config_layer layer,
                                        const std::map<std::string, std::string>& raw) {
    validation_report report;
    assert(layer != config_layer::default_value);
    if (layer == config_layer::default_value) {
        report.errors.push_back({"", "the default layer cannot be replaced"});
        return report;
    }
    const bool dynamic =
        layer == config_layer::dynamic_broker || layer == config_layer::dynamic_cluster_default;
    layer_map fresh;
    for (const auto& [name, value] : raw) {
        const config_key* k = _def->find(name);
        if (!k) {
            // Kafka's per-listener form, listener.name.<listener>.<key>, for
            // the keys a listener may override (ssl.*).
            if (auto base = listener_override_base(name)) {
                k = _def->find(*base);
            }
        }
        if (!k) {
            report.warnings.push_back(
                {name, fmt::format("The configuration '{}' was supplied but isn't a known config.",
                                   name)});
            continue;
        }
        if (dynamic && k->mode == update_mode::read_only) {
            report.errors.push_back(
                {name,
                 fmt::format("Cannot update configuration {} dynamically: it is read-only", name)});
            continue;
        }
        if (layer == config_layer::dynamic_cluster_default && k->mode == update_mode::per_broker) {
            report.errors.push_back(
                {name, fmt::format("Cannot update configuration {} at default cluster level: it "
                                   "can only be set per broker",
                                   name)});
            continue;
        }
        auto v = parse_config_value(*k, value);
        if (!v) {
            report.errors.push_back({name, v.err().message});
            continue;
        }
        fresh.emplace(name, stored{value, std::move(*v)});
    }
    _layers[index_of(layer)] = std::move(fresh);
    return report;
}

std::optional<std::string_view> config_set::listener_override_base(std::string_view name) {
    constexpr std::string_view prefix = "listener.name.";
    if (name.substr(0, prefix.size()) != prefix) {
        return std::nullopt;
    }
    auto rest = name.substr(prefix.size());
    auto dot = rest.find('.');
    if (dot == std::string_view::npos || dot == 0) {
        return std::nullopt;
    }
    auto key = rest.substr(dot + 1);
    if (key.substr(0, 4) == "ssl." || key.substr(0, 5) == "sasl.") {
        return key;
    }
    // <mechanism>.sasl.jaas.config and <mechanism>.connections.max.reauth.ms:
    // settings of one SASL mechanism.
    for (std::string_view per_mechanism : {".sasl.jaas.config", ".connections.max.reauth.ms"}) {
        for (std::string_view mech : {"plain", "scram-sha-256", "scram-sha-512"}) {
            if (key.size() == mech.size() + per_mechanism.size() &&
                key.substr(0, mech.size()) == mech && key.substr(mech.size()) == per_mechanism) {
                return per_mechanism.substr(1);
            }
        }
    }
    return std::nullopt;
}

namespace {

// listener.name.<listener, lower case>.<key>
std::string per_listener_name(std::string_view listener, std::string_view key) {
    std::string name = "listener.name.";
    for (char c : listener) {
        name += char(std::tolower(static_cast<unsigned char>(c)));
    }
    name += ".";
    name += key;
    return name;
}

}  // namespace

std::optional<std::string> config_set::listener_raw(std::string_view listener,
                                                    std::string_view key) const {
    if (const stored* s = find(per_listener_name(listener, key), nullptr)) {
        return s->raw;
    }
    return std::nullopt;
}

const config_value* config_set::listener_value(std::string_view listener,
                                               std::string_view key) const {
    if (const stored* s = find(per_listener_name(listener, key), nullptr)) {
        return &s->value;
    }
    return &get(key);
}

validation_report config_set::check_required() const {
    validation_report report;
    for (const auto& k : _def->keys()) {
        if (k.required() && !find(k.name, nullptr)) {
            report.errors.push_back(
                {k.name, fmt::format("Missing required configuration \"{}\" which has no default "
                                     "value.",
                                     k.name)});
        }
    }
    return report;
}

const config_set::stored* config_set::find(std::string_view name, config_layer* layer_out) const {
    for (size_t i = k_layer_count; i-- > 0;) {
        auto it = _layers[i].find(name);
        if (it != _layers[i].end()) {
            if (layer_out) {
                *layer_out = static_cast<config_layer>(i);
            }
            return &it->second;
        }
    }
    return nullptr;
}

const config_value& config_set::get(std::string_view name) const {
    assert(_def->find(name) && "unknown config key");
    const stored* s = find(name, nullptr);
    return s ? s->value : k_null_value;
}

namespace {

// The value as T. A null or mistyped value is a programming error (the caller reads
// a key it did not validate, or with the wrong getter): it asserts, and in release
// builds reads as T{} rather than throwing.
template <typename T>
const T& typed(const config_value& v, std::string_view name) {
    static const T fallback{};
    const T* p = std::get_if<T>(&v);
    assert(p && "config value is null or of another type");
    (void)name;
    return p ? *p : fallback;
}

}  // namespace

bool config_set::get_bool(std::string_view name) const {
    return typed<bool>(get(name), name);
}

int16_t config_set::get_short(std::string_view name) const {
    return static_cast<int16_t>(typed<int64_t>(get(name), name));
}

int32_t config_set::get_int(std::string_view name) const {
    return static_cast<int32_t>(typed<int64_t>(get(name), name));
}

int64_t config_set::get_long(std::string_view name) const {
    return typed<int64_t>(get(name), name);
}

double config_set::get_double(std::string_view name) const {
    return typed<double>(get(name), name);
}

const std::string& config_set::get_string(std::string_view name) const {
    return typed<std::string>(get(name), name);
}

const list_value& config_set::get_list(std::string_view name) const {
    return typed<list_value>(get(name), name);
}

std::optional<int64_t> config_set::get_optional_long(std::string_view name) const {
    const config_value& v = get(name);
    if (auto* i = std::get_if<int64_t>(&v)) {
        return *i;
    }
    return std::nullopt;
}

std::optional<std::string> config_set::get_optional_string(std::string_view name) const {
    const config_value& v = get(name);
    if (auto* s = std::get_if<std::string>(&v)) {
        return *s;
    }
    return std::nullopt;
}

std::optional<list_value> config_set::get_optional_list(std::string_view name) const {
    const config_value& v = get(name);
    if (auto* l = std::get_if<list_value>(&v)) {
        return *l;
    }
    return std::nullopt;
}

config_layer config_set::layer_of(std::string_view name) const {
    config_layer l = config_layer::default_value;
    find(name, &l);
    return l;
}

bool config_set::is_configured(std::string_view name) const {
    config_layer l = config_layer::default_value;
    return find(name, &l) && l != config_layer::default_value;
}

std::optional<std::string> config_set::raw(config_layer layer, std::string_view name) const {
    const auto& m = _layers[index_of(layer)];
    auto it = m.find(name);
    if (it == m.end()) {
        return std::nullopt;
    }
    return it->second.raw;
}

std::map<std::string, std::string> config_set::layer_values(config_layer layer) const {
    std::map<std::string, std::string> out;
    for (const auto& [name, s] : _layers[index_of(layer)]) {
        out.emplace(name, s.raw);
    }
    return out;
}

std::vector<config_synonym> config_set::synonyms(const std::vector<std::string>& names) const {
    std::vector<config_synonym> out;
    auto add = [&](std::string_view name, const std::string& raw, config_source src) {
        const config_key* k = _def->find(name);
        bool hidden = k && k->sensitive();
        out.push_back(
            {std::string(name), hidden ? std::nullopt : std::optional<std::string>(raw), src});
    };
    for (config_layer l : {config_layer::dynamic_broker, config_layer::dynamic_cluster_default}) {
        for (const auto& n : names) {
            if (auto r = raw(l, n)) {
                add(n, *r, source_of(l));
            }
        }
    }
    for (const auto& n : names) {
        auto r = raw(config_layer::static_override, n);
        if (!r) {
            r = raw(config_layer::static_file, n);
        }
        if (r) {
            add(n, *r, config_source::static_broker_config);
        }
    }
    for (const auto& n : names) {
        if (auto r = raw(config_layer::default_value, n)) {
            add(n, *r, config_source::default_config);
        }
    }
    return out;
}

}  // namespace samsa::config
