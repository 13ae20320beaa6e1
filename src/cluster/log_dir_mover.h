#pragma once
// log_dir_mover: fills a replica's future log from its current one, then swaps
// them (Kafka's ReplicaAlterLogDirsThread, KIP-113; docs/log-dir-moves.md).
//
// A move copies batches as a follower appends its leader's: same offsets,
// epochs and producer state. The current log keeps serving and taking writes
// meanwhile, so the copy chases it; each step first brings the future log
// back in line with the current one (a log start moved by retention or
// DeleteRecords, a follower's truncation) by their leader epochs, as a
// follower does with its leader. When a step leaves both at the same log end
// offset, the future log takes the current one's place in the same step: no
// append can come between, as both belong to the partition's shard.
//
// On the partition's shard only.
#include <cstdint>

#include "cluster/partition.h"
#include "common/result.h"
#include "storage/log.h"
#include "storage/log_manager.h"

namespace samsa::cluster {

enum class move_state {
    copying,    // batches were copied; more may follow at once
    caught_up,  // nothing to copy, but the swap must wait (a flush in flight)
    moved,      // the future log is the partition's log now
};

struct move_step {
    move_state state = move_state::copying;
    int64_t bytes = 0;  // copied by this step
};

// One step: aligns `future` with the partition's current log, copies at most
// `max_bytes` of whole batches (one batch at least) and swaps when caught up.
// An error (the future or current log failed, the read failed) ends the
// move; the caller drops the future log.
result<move_step> copy_to_future(partition& p, storage::log_manager& logs, storage::log& future,
                                 int64_t max_bytes, int64_t now_ms);

// Brings `future` back in line with `current` before a copy: starts it over at
// the current log start when that passed its end, moves its log start and high
// watermark up, and truncates it where the leader epochs say they diverge.
status align_future(const storage::log& current, storage::log& future, int64_t now_ms);

}  // namespace samsa::cluster
