#pragma once
// metadata.version, the feature that says which metadata records a cluster
// may write (KIP-778): its levels as Kafka names them (MetadataVersion), and
// the range this broker supports, which ApiVersions advertises (KIP-584) and
// `samsa features describe` prints.
#include <cstdint>
#include <optional>
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

// The level Kafka's MetadataVersion.fromVersionString names: "3.6-IV2", or a
// release ("3.6", "3.6.1") for its last level; nullopt for a name it does not
// know among the levels this broker supports.
std::optional<int16_t> metadata_version_level(const std::string& name);

// Whether the metadata written changed anywhere between two levels (Kafka's
// MetadataVersion.checkIfMetadataChanged): a downgrade across such a change
// could lose metadata, so it is refused.
bool metadata_changed_between(int16_t from, int16_t to);

}  // namespace samsa::metadata
