#pragma once
// ASCII case folding for the protocol's case-insensitive names (group states
// and types in ListGroups, CLI filters); never locale-dependent.
#include <cstdint>
#include <string>

namespace samsa {

inline std::string ascii_lower(std::string s) {
    for (auto& c : s) {
        if (c >= 'A' && c <= 'Z') {
            c = char(c - 'A' + 'a');
        }
    }
    return s;
}

}  // namespace samsa
