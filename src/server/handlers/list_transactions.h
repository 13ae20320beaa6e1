#pragma once
// ListTransactions (key 66, v0-1, KIP-664): the transactional ids this broker
// coordinates, filtered by state (Kafka's names: Ongoing, PrepareCommit, ...),
// by producer id, and from v1 by duration (KIP-994: running for longer than
// that many milliseconds). A state name Kafka does not know is returned in
// unknown_state_filters and filters nothing, as in Kafka.
// COORDINATOR_LOAD_IN_PROGRESS while a partition of __transaction_state loads.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler list_transactions_handler();

}  // namespace samsa::server::handlers
