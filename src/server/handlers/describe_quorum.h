#pragma once
// DescribeQuorum (key 55, v0-2): the metadata quorum as its leader sees it —
// leader, epoch, high watermark, and each voter's and observer's log end offset
// and last fetch. Any node answers: a node that does not lead forwards the
// request to the leader's controller listener.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_quorum_handler();

}  // namespace samsa::server::handlers
