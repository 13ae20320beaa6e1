#pragma once
// TxnOffsetCommit (key 28, v0-4): a transactional producer commits a group's
// offsets inside its transaction (the consume-transform-produce loop). The
// group's coordinator writes them in a transactional batch of the producer;
// they count once the producer's COMMIT marker reaches the group's
// __consumer_offsets partition, and are dropped on ABORT. v3+ carry the
// member's generation and id (KIP-447), checked as OffsetCommit checks them.
// v4 only allows TRANSACTION_ABORTABLE (KIP-890), never answered here.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler txn_offset_commit_handler();

}  // namespace samsa::server::handlers
