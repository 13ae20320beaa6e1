#include "metadata/metadata_version.h"

#include <algorithm>
#include <array>

namespace samsa::metadata {

namespace {

// Kafka's MetadataVersion names of the feature levels 1 to 14.
constexpr std::array<const char*, 15> names = {
    nullptr,   "3.0-IV1", "3.1-IV0", "3.2-IV0", "3.3-IV0", "3.3-IV1", "3.3-IV2", "3.3-IV3",
    "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1", "3.6-IV2"};
// Their didMetadataChange: whether the level changed the records written.
constexpr std::array<bool, 15> changed = {false, true,  false, true, false, true, true, true,
                                          true,  false, false, true, false, true, true};

}  // namespace

std::string metadata_version_name(int16_t level) {
    if (level >= 1 && size_t(level) < names.size()) {
        return names[size_t(level)];
    }
    return "UNKNOWN " + std::to_string(level);
}

std::optional<int16_t> metadata_version_level(const std::string& name) {
    // Only the first two parts of a release count ("3.6.1" is "3.6").
    std::string key = name;
    if (key.find("-IV") == std::string::npos) {
        const auto first = key.find('.');
        const auto second = first == std::string::npos ? first : key.find('.', first + 1);
        if (second != std::string::npos) {
            key.resize(second);
        }
    }
    std::optional<int16_t> found;
    for (int16_t level = min_supported_metadata_version; level <= max_supported_metadata_version;
         ++level) {
        const std::string n = names[size_t(level)];
        if (n == key || n.substr(0, n.find("-IV")) == key) {
            found = level;  // a release names its last level
        }
    }
    return found;
}

bool metadata_changed_between(int16_t from, int16_t to) {
    if (from == to) {
        return false;
    }
    int16_t high = std::max(from, to);
    const int16_t low = std::min(from, to);
    while (high > low && high >= 1 && size_t(high) < changed.size() && !changed[size_t(high)]) {
        --high;
    }
    return high != low;
}

}  // namespace samsa::metadata
