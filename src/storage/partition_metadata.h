#pragma once
// partition_metadata: the `partition.metadata` file of a partition directory
// (Kafka's PartitionMetadataFile, KIP-516), which ties the directory to its
// topic id so a topic deleted and recreated under the same name is never
// mistaken for the old one:
//
//   version: 0
//   topic_id: <22-character URL-safe base64 uuid>
//
// Written atomically (temp, fsync, rename, fsync dir).
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/uuid.h"

namespace samsa::storage {

inline constexpr std::string_view partition_metadata_file = "partition.metadata";

status write_partition_metadata(const std::string& path, const uuid& topic_id);
// nullopt when the file does not exist; KAFKA_STORAGE_ERROR when malformed.
result<std::optional<uuid>> read_partition_metadata(const std::string& path);

}  // namespace samsa::storage
