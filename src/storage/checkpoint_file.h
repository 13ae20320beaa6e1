#pragma once
// checkpoint_file: Kafka's text checkpoint files (CheckpointFile). Format:
//
//   <version>\n          an integer; 0 for every file written here
//   <count>\n            number of entry lines that follow
//   <entry>\n * count    space-separated fields
//
// Used for, in each log dir root (entries "<topic> <partition> <offset>"):
//   recovery-point-offset-checkpoint   per partition: offsets below are flushed
//   replication-offset-checkpoint      per partition: the high watermark
//   log-start-offset-checkpoint        per partition: the log start offset
// and per partition leader-epoch-checkpoint ("<epoch> <start offset>";
// storage/leader_epoch_cache.h).
//
// Writes are atomic (temp file, fsync, rename, fsync dir): a crash leaves the old
// or the new file. Reads check the version, the count and every line, and name
// the file and the line in the error (KAFKA_STORAGE_ERROR), never guess. A
// missing file reads as no entries, as in Kafka.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "storage/topic_partition.h"

namespace samsa::storage {

inline constexpr std::string_view recovery_point_checkpoint_file =
    "recovery-point-offset-checkpoint";
inline constexpr std::string_view replication_checkpoint_file = "replication-offset-checkpoint";
inline constexpr std::string_view log_start_offset_checkpoint_file = "log-start-offset-checkpoint";

struct checkpoint_contents {
    int version = 0;
    // Each entry line split on whitespace.
    std::vector<std::vector<std::string>> entries;
};

// Writes the file; each entry is its fields, joined by single spaces.
status write_checkpoint(const std::string& path, int version,
                        const std::vector<std::vector<std::string>>& entries);
// Reads the file; its version must be `expected_version` and every entry must
// have `fields_per_entry` fields.
result<checkpoint_contents> read_checkpoint(const std::string& path, int expected_version,
                                            size_t fields_per_entry);

using offset_checkpoint = std::map<topic_partition, int64_t>;

status write_offset_checkpoint(const std::string& path, const offset_checkpoint& offsets);
result<offset_checkpoint> read_offset_checkpoint(const std::string& path);

// Strict integer parsing for checkpoint fields: an optional '-', digits, no
// trailing bytes, in range.
bool parse_int64(std::string_view s, int64_t* out);

}  // namespace samsa::storage
