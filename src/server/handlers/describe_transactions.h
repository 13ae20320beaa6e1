#pragma once
// DescribeTransactions (key 65, v0, KIP-664): for each transactional id this
// broker coordinates, its state, producer id and epoch, timeout, start time
// and partitions. NOT_COORDINATOR for an id another broker coordinates,
// COORDINATOR_LOAD_IN_PROGRESS while its partition loads,
// TRANSACTIONAL_ID_NOT_FOUND for an id with no state.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_transactions_handler();

}  // namespace samsa::server::handlers
