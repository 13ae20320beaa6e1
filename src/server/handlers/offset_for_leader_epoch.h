#pragma once
// OffsetForLeaderEpoch (key 23): the end offset of a leader epoch, so that a
// consumer (KIP-320) or a follower (KIP-101/279) can detect and cut a log
// suffix that a newer leader does not have.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler offset_for_leader_epoch_handler();

}  // namespace samsa::server::handlers
