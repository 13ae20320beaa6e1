#pragma once
// Kafka's config value types (org.apache.kafka.common.config.ConfigDef.Type) and the
// typed value a raw string parses into.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.h"

namespace samsa::config {

enum class config_type : uint8_t {
    boolean,
    string,
    int32,       // Kafka "int"
    int16,       // Kafka "short"
    int64,       // Kafka "long"
    float64,     // Kafka "double"
    list,        // comma separated strings
    class_name,  // Kafka "class": a name, kept as a string
    password,    // a string that is never printed
};

// Kafka's lower-case type name as the docs print it: "int", "long", "list", ...
std::string_view type_name(config_type t);
// The ConfigType id DescribeConfigs v3+ sends (BOOLEAN=1 ... PASSWORD=9).
int8_t describe_configs_type_id(config_type t);

using list_value = std::vector<std::string>;
// std::monostate is null ("no value"). Every integer width is held as int64_t; the
// parser has already checked that it fits the declared type.
using config_value = std::variant<std::monostate, bool, int64_t, double, std::string, list_value>;

// Parses a raw string as Kafka's ConfigDef.parseType does: surrounding whitespace is
// trimmed, booleans are "true"/"false" in any case, integers must fit their Java
// width, lists split on commas and drop the whitespace around each element, and an
// empty list string is the empty list. On failure the error message is the reason
// only ("Not a number of type INT"); the caller names the key and value.
result<config_value> parse_value(config_type type, std::string_view raw);

// The string form Kafka reports for a value (ConfigDef.convertToString): lists
// joined with ",", doubles as Java prints them ("0.5", "1.0"), null as "".
std::string value_to_string(const config_value& v);

inline bool is_null(const config_value& v) {
    return std::holds_alternative<std::monostate>(v);
}

}  // namespace samsa::config
