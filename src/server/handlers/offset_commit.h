#pragma once
// OffsetCommit (key 8): a group's committed offsets, stored in
// __consumer_offsets by the group's coordinator (coordinator/group/).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler offset_commit_handler();

}  // namespace samsa::server::handlers
