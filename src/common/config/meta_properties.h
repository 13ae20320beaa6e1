#pragma once
// meta.properties: the identity file Kafka keeps in every log directory (and the
// metadata log directory), as `kafka-storage format` writes it for KRaft:
//
//   #
//   #<date>
//   cluster.id=<22-character base64url uuid>
//   directory.id=<22-character base64url uuid>
//   node.id=1
//   version=1
//
// Invariants: every directory of one node has the same cluster.id and node.id, and
// its own directory.id. Samsa formats a directory itself on first start when it is
// missing or empty (Kafka requires `kafka-storage format`); a non-empty directory
// without meta.properties is refused, so data is never adopted by accident.
//
// Written atomically: meta.properties.tmp, fsync, rename, fsync of the directory.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/config/properties.h"
#include "common/result.h"
#include "common/uuid.h"

namespace samsa::config {

inline constexpr const char* k_meta_properties_file = "meta.properties";

struct meta_properties {
    int32_t version = 1;
    std::string cluster_id;
    int32_t node_id = -1;
    std::optional<uuid> directory_id;  // absent in files written before Kafka 3.7
};

// Checks the fields: version 1, node.id >= 0, cluster.id present, directory.id (if
// present) a valid non-zero uuid. Errors are invalid_config naming `where`.
result<meta_properties> parse_meta_properties(const properties& props, std::string_view where = "");
std::string format_meta_properties(const meta_properties& meta);

// Reads <dir>/meta.properties; nullopt if the file does not exist.
result<std::optional<meta_properties>> read_meta_properties(const std::filesystem::path& dir);
// Writes <dir>/meta.properties atomically (the directory must exist).
status write_meta_properties(const std::filesystem::path& dir, const meta_properties& meta);

struct log_dir_identity {
    std::filesystem::path dir;
    meta_properties meta;
    bool created = false;  // formatted by this call
};

struct storage_identity {
    std::string cluster_id;
    std::vector<log_dir_identity> dirs;
};

// For every directory (log.dirs plus metadata.log.dir; duplicates are ignored):
// reads meta.properties and checks that node.id is `node_id` and that all cluster
// ids agree; formats missing or empty directories (creating them) with the
// existing cluster id, or a new random one when no directory has one yet, and a
// new directory id each; adds a directory.id to files that lack one.
// Errors: kafka_storage_error for I/O, invalid_config for a node id mismatch or a
// non-empty unformatted directory, inconsistent_cluster_id for cluster id mismatch.
// `cluster_id`, when given, is the id a fresh directory is formatted with (the
// same on every node of a cluster, as `kafka-storage format --cluster-id`);
// a directory already formatted with another is INCONSISTENT_CLUSTER_ID.
result<storage_identity> ensure_meta_properties(const std::vector<std::filesystem::path>& dirs,
                                                int32_t node_id,
                                                const std::optional<std::string>& cluster_id = {});

}  // namespace samsa::config
