#pragma once
// raft_transport: how the core sends (the broker: a Kafka request or response
// on the controller listener; the simulation: its in-memory network). Sending
// never blocks and may lose the message: the core retries on its timers. It
// is called from inside raft_node's calls, so it must queue the message, not
// deliver it to a node synchronously.
// Incoming messages are fed with raft_node::handle().
#include "raft/raft_messages.h"
#include "raft/raft_types.h"

namespace samsa::raft {

class raft_transport {
  public:
    virtual ~raft_transport() = default;
    virtual void send(node_id to, raft_message message) = 0;
};

}  // namespace samsa::raft
