#pragma once
// DescribeProducers (key 61, v0): the active idempotent/transactional
// producers of each requested partition, as this replica's log knows them
// (leader or follower; NOT_LEADER_OR_FOLLOWER where it hosts none)
// (storage/producer_state_manager.h): id, epoch, last sequence, last
// timestamp, coordinator epoch, open transaction's first offset.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_producers_handler();

}  // namespace samsa::server::handlers
