#pragma once
// The sync phase's deadline (Kafka's DelayedSync, KAFKA-13423): after the
// join responses go out, every member must send SyncGroup within the
// rebalance timeout. Members that do not are removed and the group
// rebalances again, so a member that died between JoinGroup and SyncGroup
// cannot hold the others in CompletingRebalance until its session expires.
// Watched under the group id; completes early once every member synced or
// the group left the generation it was made for.
#include <cstdint>
#include <memory>

#include "cluster/purgatory/delayed_operation.h"

namespace samsa::coordinator {

class group_metadata_manager;
class classic_group;

class delayed_sync final : public cluster::delayed_operation {
  public:
    delayed_sync(group_metadata_manager& manager, std::shared_ptr<classic_group> group,
                 int32_t generation_id, int64_t rebalance_timeout_ms);

    bool try_complete() override;

  protected:
    void on_complete() override {}
    void on_expiration() override;

  private:
    group_metadata_manager& _manager;
    std::shared_ptr<classic_group> _group;
    int32_t _generation_id;
};

}  // namespace samsa::coordinator
