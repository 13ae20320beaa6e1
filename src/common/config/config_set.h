#pragma once
// config_set: the values of every key of one config_def, in layers, each value
// remembering where it came from. The effective value of a key is the one in the
// highest layer that sets it, else its default. DescribeConfigs reports the source
// and the synonyms; dynamic config changes replace a dynamic layer.
//
// Not thread-safe; copy it to hand a snapshot to another thread.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/config_def.h"
#include "common/config/config_value.h"

namespace samsa::config {

// Kafka's DescribeConfigs ConfigSource, with its wire values.
enum class config_source : int8_t {
    unknown = 0,
    dynamic_topic_config = 1,
    dynamic_broker_config = 2,
    dynamic_default_broker_config = 3,
    static_broker_config = 4,
    default_config = 5,
    dynamic_broker_logger_config = 6,
    client_metrics_config = 7,
    group_config = 8,
};
// Kafka's name: "DYNAMIC_TOPIC_CONFIG", "STATIC_BROKER_CONFIG", ...
std::string_view source_name(config_source s);

// Layers in rising precedence (docs/architecture.md, "Metadata": per-broker dynamic > cluster-wide
// dynamic > static file > default). The command line's overrides sit above the file
// and, as in Kafka, are reported as STATIC_BROKER_CONFIG too.
enum class config_layer : uint8_t {
    default_value = 0,
    static_file = 1,
    static_override = 2,
    dynamic_cluster_default = 3,
    dynamic_broker = 4,
};
inline constexpr size_t k_layer_count = 5;
config_source source_of(config_layer l);

struct config_problem {
    std::string key;
    std::string message;
};

struct validation_report {
    std::vector<config_problem> errors;
    std::vector<config_problem> warnings;

    bool ok() const { return errors.empty(); }
    // All error messages joined with "; ".
    std::string error_summary() const;
    void merge(validation_report other);
};

// One place a key's value is set, for DescribeConfigs synonyms.
struct config_synonym {
    std::string name;
    std::optional<std::string> value;  // nullopt for sensitive keys
    config_source source = config_source::unknown;
};

class config_set {
  public:
    // `def` must outlive the set. Defaults are parsed here.
    explicit config_set(const config_def& def);

    // Replaces a layer with `raw`. Every value is parsed and validated; invalid ones
    // are errors and are not stored. Unknown keys are warnings and are dropped. In
    // the dynamic layers, keys Kafka does not allow to change at that level are
    // errors (read-only keys anywhere, per-broker keys as cluster-wide defaults).
    // The default layer cannot be replaced.
    validation_report set_layer(config_layer layer, const std::map<std::string, std::string>& raw);

    // Required keys (no default) that no layer sets.
    validation_report check_required() const;

    const config_def& definition() const { return *_def; }

    // Effective values. The typed getters assert that the key is defined and its
    // value is non-null and of that type (release builds read a zero value instead);
    // the optional getters answer nullopt for null.
    const config_value& get(std::string_view name) const;
    bool is_null(std::string_view name) const { return config::is_null(get(name)); }
    bool get_bool(std::string_view name) const;
    int16_t get_short(std::string_view name) const;
    int32_t get_int(std::string_view name) const;
    int64_t get_long(std::string_view name) const;
    double get_double(std::string_view name) const;
    const std::string& get_string(std::string_view name) const;
    const list_value& get_list(std::string_view name) const;
    std::optional<int64_t> get_optional_long(std::string_view name) const;
    std::optional<std::string> get_optional_string(std::string_view name) const;
    std::optional<list_value> get_optional_list(std::string_view name) const;

    // The layer that supplies the effective value, and its DescribeConfigs source.
    config_layer layer_of(std::string_view name) const;
    config_source source(std::string_view name) const { return source_of(layer_of(name)); }
    // Set by any layer above the defaults (Kafka's originals().containsKey()).
    bool is_configured(std::string_view name) const;
    // The raw string a layer holds for `name`, if it sets it. The default layer
    // answers with the default's raw string (nullopt for null/required defaults).
    std::optional<std::string> raw(config_layer layer, std::string_view name) const;
    // Raw strings of every key a layer sets.
    std::map<std::string, std::string> layer_values(config_layer layer) const;

    // A listener's value of `key`: listener.name.<listener, lower case>.<key>
    // where a layer sets it (Kafka's per-listener form, ssl.* keys), else the
    // key's own effective value.
    const config_value* listener_value(std::string_view listener, std::string_view key) const;
    // The raw value of listener.name.<listener, lower case>.<key> where a
    // layer sets it, with no fallback (keys such as plain.sasl.jaas.config
    // exist only in that form).
    std::optional<std::string> listener_raw(std::string_view listener, std::string_view key) const;
    // The key a per-listener name overrides ("ssl.keystore.location" for
    // "listener.name.ssl.ssl.keystore.location"); nullopt for other names.
    static std::optional<std::string_view> listener_override_base(std::string_view name);

    // Kafka's synonym list for describing a key whose value may come from any of
    // `names` (highest priority first, e.g. log.retention.ms, .minutes, .hours):
    // for each source from dynamic per-broker down to default, each name set there.
    // The static file and override layers count as one STATIC_BROKER_CONFIG source.
    std::vector<config_synonym> synonyms(const std::vector<std::string>& names) const;

  private:
    struct stored {
        std::string raw;
        config_value value;
    };
    using layer_map = std::map<std::string, stored, std::less<>>;

    const stored* find(std::string_view name, config_layer* layer_out) const;

    const config_def* _def;
    std::array<layer_map, k_layer_count> _layers;
};

}  // namespace samsa::config
