#pragma once
// AddPartitionsToTxn (key 24, v0-5): a transactional producer names the
// partitions it is about to write to, before its first write to each
// (coordinator/txn/txn_manager.h). v0-3 carry one transaction from a client;
// v4 batches several and may only verify (KIP-890: a partition leader asking
// whether a transactional write belongs to an ongoing transaction). v5 only
// lets the broker answer TRANSACTION_ABORTABLE (KIP-890), which it has no
// cause to: it answers v5 as v4.
//
// A partition that does not exist fails with UNKNOWN_TOPIC_OR_PARTITION and
// the others of its transaction with OPERATION_NOT_ATTEMPTED, as in Kafka.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler add_partitions_to_txn_handler();

}  // namespace samsa::server::handlers
