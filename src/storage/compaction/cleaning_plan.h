#pragma once
// cleaning_plan: what one cleaning of one log works from and what it hands
// back (docs/compaction.md).
//
// The plan is taken on the log's shard (log::plan_cleaning): the inactive
// segments from the log start up to the first uncleanable offset, each with
// its .log held open, so the cleaner thread reads files no one appends to and
// that stay readable whatever the log does meanwhile. The outcome is cleaned
// segments, written under `.cleaned` names beside the log's own, which the
// shard swaps in (log::swap_cleaned) unless the log changed under them: a
// truncation, retention or a deletion since the plan bumps the log's
// generation, and the outcome is then thrown away.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "storage/file_util.h"
#include "storage/log_config.h"
#include "storage/log_segment.h"
#include "storage/topic_partition.h"
#include "storage/transaction_index.h"

namespace samsa::storage::compaction {

struct source_segment {
    int64_t base_offset = 0;
    int64_t next_offset = 0;  // one past its last offset
    int64_t size_bytes = 0;
    int64_t largest_timestamp = -1;  // what retention and the compaction lags compare
    size_t index_entries = 0;
    size_t time_index_entries = 0;
    std::shared_ptr<const file_handle> file;
    std::vector<aborted_txn> aborted;  // its .txnindex
};

struct cleaning_plan {
    std::string dir;
    topic_partition tp;
    log_config config;
    // From the log start, consecutive, each wholly below the first
    // uncleanable offset (the active segment never is).
    std::vector<source_segment> segments;
    // The dirty part starts at the segment holding this offset: what was
    // written since the last cleaning (the cleaner-offset-checkpoint).
    int64_t first_dirty_offset = 0;
    // min(active segment base, last stable offset, high watermark, the first
    // segment still inside min.compaction.lag.ms).
    int64_t first_uncleanable_offset = 0;
    // Each producer's last data offset: its last batch is kept (empty when
    // every record goes) so that its sequence survives cleaning, as in Kafka.
    std::map<int64_t, int64_t> producer_last_offsets;
    uint64_t generation = 0;

    int64_t total_bytes() const;
    int64_t dirty_bytes() const;
    // dirty / total; 0 for an empty plan.
    double dirty_ratio() const;
    // The first dirty segment's earliest record is older than
    // max.compaction.lag.ms at `now_ms`: clean whatever the ratio.
    bool compaction_lag_exceeded(int64_t now_ms) const;
};

// One cleaned segment and the segments it replaces (their base offsets; the
// first equals its own).
struct cleaned_segment {
    std::vector<int64_t> replaces;
    std::shared_ptr<log_segment> segment;
};

struct cleaner_stats {
    int64_t bytes_read = 0;
    int64_t bytes_written = 0;
    int64_t batches_read = 0;
    int64_t records_read = 0;
    int64_t records_kept = 0;
    int64_t tombstones_removed = 0;
    int64_t aborted_records_removed = 0;
    int64_t markers_removed = 0;
    int64_t map_entries = 0;
    int64_t duration_ms = 0;
};

struct cleaning_outcome {
    std::vector<cleaned_segment> segments;
    // The new first dirty offset: everything below was in the offset map.
    int64_t cleaned_up_to = 0;
    cleaner_stats stats;
};

}  // namespace samsa::storage::compaction
