#include "metadata/config_view.h"

#include <string>

#include "common/config/broker_config.h"

namespace samsa::metadata {

namespace {

std::vector<std::string> synonym_names(const std::string& key) {
    std::vector<std::string> names;
    for (const auto& s : config::broker_synonyms(key)) {
        names.push_back(s.name);
    }
    return names;
}

config_entry entry_for(const config::config_key& k) {
    config_entry e;
    e.name = k.name;
    e.type = k.type;
    e.sensitive = k.sensitive();
    e.read_only = !k.dynamic();
    e.documentation = k.doc;
    return e;
}

}  // namespace

bool broker_configs_changed(const metadata_image& prev, const metadata_image& next,
                            int32_t node_id) {
    const auto layer = [](const metadata_image& img, const std::string& resource) {
        auto it = img.broker_configs.find(resource);
        return it == img.broker_configs.end() ? nullptr : &it->second;
    };
    const auto same = [&](const std::string& resource) {
        const auto* a = layer(prev, resource);
        const auto* b = layer(next, resource);
        return a == b || (a && b && *a == *b);
    };
    return !same("") || !same(std::to_string(node_id));
}

config::config_set effective_broker_config(const config::config_set& static_values,
                                           const metadata_image& image, int32_t node_id) {
    config::config_set out = static_values;
    // Values in the image were validated when they were written; a key a newer
    // definition refuses is dropped here rather than failing every reader.
    auto layer = [&](config::config_layer l, const std::string& resource) {
        auto it = image.broker_configs.find(resource);
        (void)out.set_layer(l, it == image.broker_configs.end()
                                   ? std::map<std::string, std::string>{}
                                   : it->second);
    };
    layer(config::config_layer::dynamic_cluster_default, "");
    layer(config::config_layer::dynamic_broker, std::to_string(node_id));
    return out;
}

std::vector<config_entry> describe_broker_configs(const config::config_set& effective) {
    std::vector<config_entry> out;
    for (const config::config_key* k : effective.definition().sorted_keys()) {
        config_entry e = entry_for(*k);
        const auto& v = effective.get(k->name);
        if (!e.sensitive && !config::is_null(v)) {
            e.value = config::value_to_string(v);
        }
        e.synonyms = effective.synonyms(synonym_names(k->name));
        e.source =
            e.synonyms.empty() ? config::config_source::default_config : e.synonyms.front().source;
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<config_entry> describe_cluster_default_configs(const config::config_set& effective) {
    std::vector<config_entry> out;
    const auto defaults = effective.layer_values(config::config_layer::dynamic_cluster_default);
    for (const auto& [name, raw] : defaults) {
        const config::config_key* k = effective.definition().find(name);
        if (!k) {
            continue;
        }
        config_entry e = entry_for(*k);
        e.source = config::config_source::dynamic_default_broker_config;
        if (!e.sensitive) {
            e.value = raw;
        }
        for (auto& s : effective.synonyms(synonym_names(name))) {
            if (s.source == config::config_source::dynamic_default_broker_config) {
                e.synonyms.push_back(std::move(s));
            }
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace samsa::metadata
