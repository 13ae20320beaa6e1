#pragma once
// bootstrap_metadata: the records a fresh metadata log starts with (Kafka's
// BootstrapMetadata). The active controller writes them with the first record
// it commits to an empty log: the metadata.version feature level, and what
// `samsa storage format` added, such as the first SCRAM users (--add-scram,
// KIP-554), so that a cluster whose listeners all require SASL/SCRAM can be
// reached at all.
//
// `samsa storage format` keeps them in `<metadata.log.dir>/bootstrap.checkpoint`,
// laid out as a metadata snapshot (header, records, footer), as Kafka's
// BootstrapDirectory does. Without that file (a directory the broker formatted
// itself), the defaults: metadata.version alone.
#include <string>
#include <vector>

#include "common/result.h"
#include "metadata/metadata_record_serde.h"

namespace samsa::metadata {

inline constexpr const char* bootstrap_file_name = "bootstrap.checkpoint";

// metadata.version at the level whose records Samsa writes.
std::vector<metadata_record> default_bootstrap_records();

// The records of `dir`'s bootstrap.checkpoint, or the defaults when it has
// none. A file that does not decode, or names no metadata.version, is an
// error naming the file: a controller must not start a cluster from half of it.
result<std::vector<metadata_record>> read_bootstrap_records(const std::string& dir);

// Writes `records` as `dir`'s bootstrap.checkpoint (atomically, synced).
status write_bootstrap_records(const std::string& dir, const std::vector<metadata_record>& records);

}  // namespace samsa::metadata
