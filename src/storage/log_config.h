#pragma once
// log_config: the topic-level settings a partition log obeys, with Kafka's
// names and defaults (topic config key in the comment; the broker-wide
// `log.`-prefixed key sets the default). The config room parses and validates
// them; this struct is what the storage room consumes.
#include <cstdint>
#include <limits>

namespace samsa::storage {

struct log_config {
    // segment.bytes (log.segment.bytes): roll when the active segment would
    // exceed it. At most 2^31-1: index positions are int32.
    int64_t segment_bytes = 1024 * 1024 * 1024;
    // segment.ms (log.roll.ms): roll when the active segment's first batch is
    // older than this (minus a per-segment jitter in [0, segment.jitter.ms)).
    int64_t segment_ms = 7LL * 24 * 60 * 60 * 1000;
    int64_t segment_jitter_ms = 0;  // segment.jitter.ms (log.roll.jitter.ms)
    // segment.index.bytes (log.index.size.max.bytes): preallocated index size;
    // a full offset or time index rolls the segment.
    int64_t segment_index_bytes = 10 * 1024 * 1024;
    int32_t index_interval_bytes = 4096;  // index.interval.bytes
    // retention.ms (log.retention.ms): -1 keeps forever.
    int64_t retention_ms = 7LL * 24 * 60 * 60 * 1000;
    int64_t retention_bytes = -1;  // retention.bytes (log.retention.bytes): -1 = no limit
    // flush.messages (log.flush.interval.messages) and flush.ms
    // (log.flush.interval.ms): force an fdatasync after that many messages or
    // that much time. The defaults leave flushing to the OS.
    int64_t flush_messages = std::numeric_limits<int64_t>::max();
    int64_t flush_ms = std::numeric_limits<int64_t>::max();
    int64_t file_delete_delay_ms = 60000;  // file.delete.delay.ms
    // max.message.bytes (message.max.bytes): the largest batch accepted.
    int32_t max_message_bytes = 1048588;
    // cleanup.policy: "delete", "compact" or both. Retention by time and size
    // applies only with delete; the log start offset always applies.
    bool cleanup_delete = true;
    bool cleanup_compact = false;
    // Compaction (storage/compaction/, docs/compaction.md).
    // min.cleanable.dirty.ratio (log.cleaner.min.cleanable.ratio): the share of
    // the log written since the last cleaning that makes it worth cleaning.
    double min_cleanable_dirty_ratio = 0.5;
    // min.compaction.lag.ms / max.compaction.lag.ms (log.cleaner.*): a record
    // stays uncompacted at least this long; a segment is cleaned at the latest
    // this long after its first record, whatever the dirty ratio.
    int64_t min_compaction_lag_ms = 0;
    int64_t max_compaction_lag_ms = std::numeric_limits<int64_t>::max();
    // delete.retention.ms (log.cleaner.delete.retention.ms): how long a
    // tombstone or a transaction marker outlives the cleaning that first found
    // it removable (KIP-534's delete horizon).
    int64_t delete_retention_ms = 24LL * 60 * 60 * 1000;
};

}  // namespace samsa::storage
