#pragma once
// The short names the broker key definitions are written with
// (broker_config_def.cc and its parts); only those files include this.
#include <cstdint>
#include <limits>
#include <string>

#include "common/config/config_def.h"

namespace samsa::config::def_shorthand {

constexpr auto k_int = config_type::int32;
constexpr auto k_short = config_type::int16;
constexpr auto k_long = config_type::int64;
constexpr auto k_double = config_type::float64;
constexpr auto k_bool = config_type::boolean;
constexpr auto k_string = config_type::string;
constexpr auto k_list = config_type::list;

constexpr auto high = importance::high;
constexpr auto medium = importance::medium;
constexpr auto low = importance::low;

constexpr auto read_only = update_mode::read_only;
constexpr auto cluster_wide = update_mode::cluster_wide;
constexpr auto per_broker = update_mode::per_broker;

inline const std::string k_long_max = std::to_string(std::numeric_limits<int64_t>::max());
inline const std::string k_int_max = std::to_string(std::numeric_limits<int32_t>::max());

inline validator none() {
    return {};
}

// d.define() of one key, as the definitions list them.
inline auto definer(config_def& d) {
    return [&d](const char* name, config_type t, default_value dv, validator v, importance i,
                update_mode m, const char* doc) {
        d.define(config_key{name, t, std::move(dv), std::move(v), i, m, doc});
    };
}

}  // namespace samsa::config::def_shorthand
