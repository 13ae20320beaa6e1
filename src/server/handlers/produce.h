#pragma once
// Produce (key 0): appends each partition's record batch to its leader log on
// the partition's shard, then answers (acks=1/-1) or stays silent (acks=0).
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler produce_handler();

}  // namespace samsa::server::handlers
