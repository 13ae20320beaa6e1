#pragma once
// WriteTxnMarkers (key 27, v0-1): from a transaction coordinator to the
// leader of each partition of a transaction: append the COMMIT or ABORT
// control batch (record/control_record.h) under the producer's id and epoch
// and the coordinator's epoch, and answer once it is on every ISR replica, as
// Kafka appends markers with acks=all. The partition's producer state then
// closes the transaction, which moves its last stable offset; an ABORT is
// recorded in the segment's .txnindex. A marker on a __consumer_offsets
// partition also decides the producer's pending transactional offset commits
// there.
//
// Errors per partition: NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION,
// INVALID_PRODUCER_EPOCH (an older epoch than the partition has seen),
// TRANSACTION_COORDINATOR_FENCED (an older coordinator epoch).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler write_txn_markers_handler();

}  // namespace samsa::server::handlers
