#pragma once
// metadata.version, the feature that says which metadata records a cluster
// may write (KIP-778): its levels as Kafka names them (MetadataVersion), and
// the range this broker supports, which ApiVersions advertises (KIP-584) and
// `samsa features describe` prints.
#include <cstdint>
#include <string>

#include "metadata/metadata_record_serde.h"

namespace samsa::metadata {

// 3.3-IV3, the oldest level a KRaft cluster of Kafka 4 may run at.
inline constexpr int16_t min_supported_metadata_version = 7;
// The level whose records we write (written_metadata_version).
inline constexpr int16_t max_supported_metadata_version = written_metadata_version;

// Kafka's name for a level ("3.6-IV2"), or "UNKNOWN <level>" as its tools
// print a level they do not know.
std::string metadata_version_name(int16_t level);

}  // namespace samsa::metadata
