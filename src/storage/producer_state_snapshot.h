#pragma once
// producer_state_snapshot: the `.snapshot` files of a partition directory,
// Kafka's producer state snapshot format (ProducerStateManager, version 1).
// Full spec and invariants: docs/formats/producer_snapshot.md.
//
//   <20-digit offset>.snapshot   the producer state of every batch below
//                                that offset (the "map end offset")
//
//   offset  size  field (big-endian)
//        0     2  version                  int16, 1
//        2     4  crc                      uint32, CRC32C of bytes [6, end)
//        6     4  entry count              int32, >= 0
//       10  46*n  entries:
//                   producer_id              int64
//                   epoch                    int16
//                   last_sequence            int32  (-1: no batch)
//                   last_offset              int64  (-1: no batch)
//                   offset_delta             int32  last offset - first offset
//                   timestamp                int64  max timestamp of the batch
//                   coordinator_epoch        int32
//                   current_txn_first_offset int64  (-1: no open transaction)
//
// Kafka writes one entry per producer (its last batch). Samsa writes one entry
// per retained batch (up to five), oldest first, all with the producer's
// epoch, coordinator epoch and open transaction: Kafka's reader keeps the last
// entry of a producer id (its map put overwrites), which is exactly Kafka's
// entry, while Samsa's reader folds them back into the batch history, so a
// retry of any of the last five batches is still recognised after a restart.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/bytes.h"
#include "common/result.h"
#include "storage/producer_state_entry.h"

namespace samsa::storage {

inline constexpr std::string_view producer_snapshot_suffix = ".snapshot";
inline constexpr int16_t producer_snapshot_version = 1;
inline constexpr size_t producer_snapshot_header_size = 10;
inline constexpr size_t producer_snapshot_entry_size = 46;

using producer_map = std::map<int64_t, producer_state_entry>;

bytes encode_producer_snapshot(const producer_map& producers);
// CORRUPT_MESSAGE for an unknown version, a CRC mismatch, or bytes that do not
// hold exactly the declared entries.
result<producer_map> decode_producer_snapshot(bytes_view data);

// Writes `<dir>/<offset>.snapshot` through a `.tmp` file and a rename, so a
// crash leaves the old file or the new one. With `sync`, fdatasyncs the file
// before the rename (the directory is the caller's to sync). Returns the path.
result<std::string> write_producer_snapshot(const std::string& dir, int64_t offset,
                                            const producer_map& producers, bool sync);
// KAFKA_STORAGE_ERROR when unreadable, CORRUPT_MESSAGE when not a snapshot.
result<producer_map> read_producer_snapshot(const std::string& path);

std::string producer_snapshot_file_name(int64_t offset);
std::optional<int64_t> parse_producer_snapshot_file_name(std::string_view name);

}  // namespace samsa::storage
