#include "metadata/metadata_version.h"

#include <array>

namespace samsa::metadata {

std::string metadata_version_name(int16_t level) {
    // Kafka's MetadataVersion names of the feature levels 1 to 14.
    static constexpr std::array<const char*, 15> names = {
        nullptr,   "3.0-IV1", "3.1-IV0", "3.2-IV0", "3.3-IV0", "3.3-IV1", "3.3-IV2", "3.3-IV3",
        "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1", "3.6-IV2"};
    if (level >= 1 && size_t(level) < names.size()) {
        return names[size_t(level)];
    }
    return "UNKNOWN " + std::to_string(level);
}

}  // namespace samsa::metadata
