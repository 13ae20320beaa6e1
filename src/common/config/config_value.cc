#include "common/config/config_value.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace samsa::config {

namespace {

std::string_view trim(std::string_view s) {
    // Java's String.trim(): every character <= ' ' counts as whitespace.
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') {
        s.remove_prefix(1);
    }
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') {
        s.remove_suffix(1);
    }
    return s;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i] >= 'A' && a[i] <= 'Z' ? char(a[i] - 'A' + 'a') : a[i];
        if (x != b[i]) {
            return false;
        }
    }
    return true;
}

error not_a_number(std::string_view kind) {
    return error{error_code::invalid_config, fmt::format("Not a number of type {}", kind)};
}

// Java's Integer/Short/Long.parseLong: optional sign, decimal digits, nothing else.
result<config_value> parse_integer(std::string_view s, int64_t min, int64_t max,
                                   std::string_view kind) {
    if (!s.empty() && s.front() == '+') {
        s.remove_prefix(1);
        if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
            return not_a_number(kind);
        }
    }
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < min || v > max) {
        return not_a_number(kind);
    }
    return config_value{v};
}

result<config_value> parse_double(std::string_view s) {
    if (!s.empty() && s.front() == '+') {
        s.remove_prefix(1);
    }
    // Java accepts a trailing d/D/f/F type suffix.
    if (!s.empty() && (s.back() == 'd' || s.back() == 'D' || s.back() == 'f' || s.back() == 'F')) {
        s.remove_suffix(1);
    }
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
        return not_a_number("DOUBLE");
    }
    return config_value{v};
}

std::string java_double(double d) {
    if (std::isnan(d)) {
        return "NaN";
    }
    if (std::isinf(d)) {
        return d > 0 ? "Infinity" : "-Infinity";
    }
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
    std::string s(buf, p);
    if (s.find_first_of(".e") == std::string::npos) {
        s += ".0";
    }
    return s;
}

}  // namespace

std::string_view type_name(config_type t) {
    switch (t) {
        case config_type::boolean:
            return "boolean";
        case config_type::string:
            return "string";
        case config_type::int32:
            return "int";
        case config_type::int16:
            return "short";
        case config_type::int64:
            return "long";
        case config_type::float64:
            return "double";
        case config_type::list:
            return "list";
        case config_type::class_name:
            return "class";
        case config_type::password:
            return "password";
    }
    return "unknown";
}

int8_t describe_configs_type_id(config_type t) {
    switch (t) {
        case config_type::boolean:
            return 1;
        case config_type::string:
            return 2;
        case config_type::int32:
            return 3;
        case config_type::int16:
            return 4;
        case config_type::int64:
            return 5;
        case config_type::float64:
            return 6;
        case config_type::list:
            return 7;
        case config_type::class_name:
            return 8;
        case config_type::password:
            return 9;
    }
    return 0;
}

result<config_value> parse_value(config_type type, std::string_view raw) {
    std::string_view s = trim(raw);
    switch (type) {
        case config_type::boolean:
            if (iequals(s, "true")) {
                return config_value{true};
            }
            if (iequals(s, "false")) {
                return config_value{false};
            }
            return error{error_code::invalid_config, "Expected value to be either true or false"};
        case config_type::string:
        case config_type::class_name:
        case config_type::password:
            return config_value{std::string(s)};
        case config_type::int32:
            return parse_integer(s, std::numeric_limits<int32_t>::min(),
                                 std::numeric_limits<int32_t>::max(), "INT");
        case config_type::int16:
            return parse_integer(s, std::numeric_limits<int16_t>::min(),
                                 std::numeric_limits<int16_t>::max(), "SHORT");
        case config_type::int64:
            return parse_integer(s, std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max(), "LONG");
        case config_type::float64:
            return parse_double(s);
        case config_type::list: {
            list_value items;
            if (s.empty()) {
                return config_value{std::move(items)};
            }
            // Java's split("\\s*,\\s*", -1): empty elements are kept.
            size_t start = 0;
            while (true) {
                size_t comma = s.find(',', start);
                std::string_view item =
                    s.substr(start, comma == std::string_view::npos ? s.npos : comma - start);
                items.emplace_back(trim(item));
                if (comma == std::string_view::npos) {
                    break;
                }
                start = comma + 1;
            }
            return config_value{std::move(items)};
        }
    }
    return error{error_code::invalid_config, "unknown type"};
}

std::string value_to_string(const config_value& v) {
    struct visitor {
        std::string operator()(std::monostate) const { return {}; }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return java_double(d); }
        std::string operator()(const std::string& s) const { return s; }
        std::string operator()(const list_value& l) const {
            return fmt::format("{}", fmt::join(l, ","));
        }
    };
    return std::visit(visitor{}, v);
}

}  // namespace samsa::config
