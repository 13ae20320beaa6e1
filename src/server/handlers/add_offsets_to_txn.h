#pragma once
// AddOffsetsToTxn (key 25, v0-4): a transactional producer is about to commit
// a group's offsets in its transaction (TxnOffsetCommit): the group's
// __consumer_offsets partition joins the transaction, so its marker decides
// those offsets. v4 only allows TRANSACTION_ABORTABLE (KIP-890), never
// answered here.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler add_offsets_to_txn_handler();

}  // namespace samsa::server::handlers
