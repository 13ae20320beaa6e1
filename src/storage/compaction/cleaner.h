#pragma once
// cleaner: one cleaning of one log (Kafka's Cleaner.doClean), on a cleaner
// thread, from a plan taken on the log's shard (cleaning_plan.h).
//
//  1. The offset map: for every key in the dirty part (from the first dirty
//     offset on), the offset of its latest record. Records of aborted
//     transactions and control records do not count. When the map fills, the
//     cleaning covers only what it holds.
//  2. Every segment from the log start up to where the map ends is rewritten,
//     in groups whose sum fits segment.bytes and segment.index.bytes, into one
//     `<base>.log.cleaned` (with its indexes) per group. A record is kept
//     when no later record has its key and it is not a tombstone past its
//     delete horizon; a record without a key is dropped. Offsets, timestamps
//     and headers are kept, and so are a batch's base offset, last offset
//     delta, producer fields and codec.
//  3. Transactions: batches of aborted transactions go; a marker stays while
//     data of its transaction does, and for delete.retention.ms after the
//     first cleaning that found it alone; an ABORT marker keeps its .txnindex
//     entry. Each producer's last batch is kept, empty if need be.
//  4. Tombstones and lone markers are given a delete horizon (KIP-534: the
//     batch's base timestamp becomes now + delete.retention.ms and attribute
//     bit 6 says so) the first time they are cleaned, and are removed by a
//     cleaning after it.
//
// A segment that comes out unchanged is not swapped. Nothing here touches the
// log itself: the outcome goes back to its shard (log::swap_cleaned).
#include <atomic>
#include <cstdint>

#include "common/result.h"
#include "storage/compaction/cleaning_plan.h"
#include "storage/compaction/offset_map.h"
#include "storage/compaction/throttler.h"

namespace samsa::storage::compaction {

struct cleaning_context {
    int64_t now_ms = 0;
    throttler* throttle = nullptr;            // none: no limit
    const std::atomic<bool>* stop = nullptr;  // set: give up (CLEANING_ABORTED-like error)
};

// Step 1: fills `map` (cleared first) from the dirty part of `plan`. Returns
// the offset the map covers up to (exclusive): the end of the plan, or one
// past the last record the map took when it filled.
result<int64_t> build_offset_map(const cleaning_plan& plan, offset_map& map,
                                 const cleaning_context& ctx, cleaner_stats& stats);

// Steps 1 to 4. On error the `.cleaned` files written so far are deleted.
result<cleaning_outcome> clean_log(const cleaning_plan& plan, offset_map& map,
                                   const cleaning_context& ctx);

}  // namespace samsa::storage::compaction
