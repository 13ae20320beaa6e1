#pragma once
// EndTxn (key 26, v0-4): a transactional producer commits or aborts its
// transaction. Answered once the decision (PrepareCommit / PrepareAbort) is
// replicated in __transaction_state; the coordinator then writes the markers
// (coordinator/txn/txn_manager.h). v5 (transaction version 2, an epoch bump
// per transaction) is not served.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler end_txn_handler();

}  // namespace samsa::server::handlers
