#pragma once
// Metadata log retention (KIP-630): metadata.max.retention.bytes and
// metadata.max.retention.ms decide when the oldest snapshot, and the log
// below the next one, may go. Kafka's KafkaMetadataLog.maybeClean, run by the
// quorum every minute (as Kafka does) and after each snapshot (so a small
// limit holds between the minutes):
//
// * size: while the log and the snapshots kept are together larger than
//   max_bytes, the oldest snapshot goes;
// * age: while the oldest snapshot's last contained log timestamp is more
//   than max_ms old, it goes.
//
// "Goes" means the log start moves up to the next snapshot: the segments
// wholly below it and the older snapshot files are deleted. Each rule walks
// from the oldest snapshot and stops at the first one it keeps; the newest
// snapshot always stays, so with fewer than two nothing is cleaned. -1 turns
// a rule off.
#include <cstdint>
#include <optional>

#include "common/bytes.h"
#include "common/result.h"
#include "raft/raft_log.h"

namespace samsa::raft {

struct snapshot_retention {
    int64_t max_bytes = -1;  // metadata.max.retention.bytes
    int64_t max_ms = -1;     // metadata.max.retention.ms
};

// Cleans `log` by both rules; returns whether anything was deleted.
result<bool> clean_snapshots(raft_log& log, const snapshot_retention& retention, int64_t now_ms);

// The last contained log timestamp of a snapshot's SnapshotHeader record,
// read from the snapshot's first record batch (`data` may be just a prefix
// holding that batch); nullopt when it does not start with one.
std::optional<int64_t> snapshot_header_timestamp(bytes_view data);

}  // namespace samsa::raft
