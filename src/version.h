#pragma once
#include <string_view>

namespace samsa {

// The version, set in one place: project(samsa VERSION ...) in CMakeLists.txt.
// The build generates its definition (generated/version.cc).
extern const std::string_view k_version;

}  // namespace samsa
