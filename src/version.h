#pragma once
#include <string_view>

namespace samsa {

inline constexpr std::string_view k_version = "0.1.0";

}  // namespace samsa
