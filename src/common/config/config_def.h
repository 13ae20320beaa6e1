#pragma once
// Typed config definitions, after Kafka's ConfigDef: every key is defined once with
// its name, type, default, validator, importance, dynamic update mode and doc.
// Definition tables (broker_config_def(), topic_config_def()) are built once and
// live for the whole program; config_set and friends keep pointers into them.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/config_value.h"
#include "common/config/validator.h"
#include "common/result.h"

namespace samsa::config {

enum class importance : uint8_t { high, medium, low };
std::string_view importance_name(importance i);  // "high", "medium", "low"

// How a broker key may change at runtime, as Kafka classifies it (the "Update Mode"
// column of Kafka's broker config docs). Topic keys are all per-topic dynamic and
// use cluster_wide.
enum class update_mode : uint8_t {
    read_only,     // static file / command line only; needs a restart
    per_broker,    // dynamic, for one broker (kafka-configs --entity-name <id>)
    cluster_wide,  // dynamic, per broker or as the cluster-wide default
};
std::string_view update_mode_name(update_mode m);  // "read-only", "per-broker", "cluster-wide"

// A key's default: a raw string parsed like any value, null (the key is optional
// and absent), or none at all (the key is required).
struct default_value {
    enum class kind : uint8_t { required, null, value };
    kind k = kind::null;
    std::string raw;

    default_value(const char* v) : k(kind::value), raw(v) {}  // NOLINT: tables read better
    default_value(std::string v) : k(kind::value), raw(std::move(v)) {}  // NOLINT
    static default_value required() { return default_value(kind::required); }
    static default_value null() { return default_value(kind::null); }

  private:
    explicit default_value(kind kk) : k(kk) {}
};

struct config_key {
    std::string name;
    config_type type = config_type::string;
    default_value def = default_value::null();
    validator valid;
    importance imp = importance::medium;
    update_mode mode = update_mode::read_only;
    std::string doc;

    bool required() const { return def.k == default_value::kind::required; }
    bool sensitive() const { return type == config_type::password; }
    bool dynamic() const { return mode != update_mode::read_only; }
};

// Parses and validates `raw` for `key`. The error names key, value and what is
// allowed: "Invalid value abc for configuration num.io.threads: Not a number of
// type INT". Password values are never echoed.
result<config_value> parse_config_value(const config_key& key, std::string_view raw);

class config_def {
  public:
    // Adds a key. Defining a name twice is a programming error (asserts).
    config_def& define(config_key key);

    const config_key* find(std::string_view name) const;
    // In definition order.
    const std::vector<config_key>& keys() const { return _keys; }
    // Sorted by name, for --help-config and DescribeConfigs.
    std::vector<const config_key*> sorted_keys() const;

    // Problems in the table itself: defaults that do not parse or validate. Empty
    // for a correct table (unit tests assert that).
    std::vector<std::string> check_definitions() const;

  private:
    std::vector<config_key> _keys;
    std::map<std::string, size_t, std::less<>> _index;
};

}  // namespace samsa::config
