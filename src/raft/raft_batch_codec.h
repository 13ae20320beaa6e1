#pragma once
// raft_batch <-> record batch v2 bytes: how the metadata log stores a Raft
// batch (raft/storage_raft_log.h) and how Fetch carries one on the wire (the
// `records` of the FetchResponse partition, which the broker integration
// fills with encode_record_batch and reads with decode_record_batches).
//
// Base offset and partition leader epoch are the Raft offset and epoch;
// records have null keys and the Raft record as value; a control batch
// (attributes bit 5) has Kafka's control record key (version 0, type) on each
// record, e.g. LEADER_CHANGE (2) with a LeaderChangeMessage value. Records are
// uncompressed and carry `timestamp_ms`.
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "raft/raft_log.h"

namespace samsa::raft {

result<bytes> encode_record_batch(const raft_batch& batch, int64_t timestamp_ms);
// The whole batches in `data` (a trailing partial batch, as a Fetch cut at
// max_bytes may end with, is left out). CORRUPT_MESSAGE / INVALID_RECORD for
// bytes that are not record batches.
result<std::vector<raft_batch>> decode_record_batches(bytes_view data);

}  // namespace samsa::raft
