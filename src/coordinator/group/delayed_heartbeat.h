#pragma once
// A member's session as a delayed operation (Kafka's DelayedHeartbeat; seed
// inventory GRP-13, DLY-12), watched under the member's key. Each heartbeat
// (and each join or sync that proves the member alive) completes the current
// operation and starts the next one with the member's session timeout; if
// one times out without the member having satisfied it, the member is gone:
// it is removed and the group rebalances (group_metadata_manager::on_expire_heartbeat).
//
// A pending member (an id handed out with MEMBER_ID_REQUIRED, KIP-394) gets
// one too: it must come back with that id within its session timeout.
#include <cstdint>
#include <memory>
#include <string>

#include "cluster/purgatory/delayed_operation.h"

namespace samsa::coordinator {

class group_metadata_manager;
class classic_group;

class delayed_heartbeat final : public cluster::delayed_operation {
  public:
    delayed_heartbeat(group_metadata_manager& manager, std::shared_ptr<classic_group> group,
                      std::string member_id, bool is_pending, int64_t timeout_ms);

    bool try_complete() override;

  protected:
    void on_complete() override {}
    void on_expiration() override;

  private:
    group_metadata_manager& _manager;
    std::shared_ptr<classic_group> _group;
    std::string _member_id;
    bool _is_pending;
};

// The purgatory key of a member: group id and member id.
std::string member_key(const std::string& group_id, const std::string& member_id);

}  // namespace samsa::coordinator
