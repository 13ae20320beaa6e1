#pragma once
// The join phase of a rebalance as delayed operations in the shard's
// purgatory (Kafka's DelayedJoin and InitialDelayedJoin; seed inventory
// GRP-09/10, DLY-11), watched under the group id:
//
//   delayed_join          completes as soon as every member has rejoined
//                         (checked on each JoinGroup, LeaveGroup and member
//                         expiry), or when the longest rebalance timeout of
//                         the members passes; then the group moves to its
//                         next generation (group_metadata_manager::on_complete_join).
//   initial_delayed_join  the first rebalance of an empty group waits
//                         group.initial.rebalance.delay.ms, and again (up
//                         to the rebalance timeout in all) while new members
//                         keep arriving, so that consumers started together
//                         get one generation instead of one each (KIP-134).
//                         It never completes early.
//
// Both hold the group (shared) so that an unloaded group stays valid until
// they fire; a Dead group's completion does nothing.
#include <cstdint>
#include <memory>

#include "cluster/purgatory/delayed_operation.h"

namespace samsa::coordinator {

class group_metadata_manager;
class classic_group;

class delayed_join : public cluster::delayed_operation {
  public:
    delayed_join(group_metadata_manager& manager, std::shared_ptr<classic_group> group,
                 int64_t rebalance_timeout_ms);

    bool try_complete() override;

  protected:
    void on_complete() override;

    group_metadata_manager& _manager;
    std::shared_ptr<classic_group> _group;
};

class initial_delayed_join final : public delayed_join {
  public:
    // Waits `delay_ms`; `remaining_ms` is what is left of the rebalance
    // timeout for further delays.
    initial_delayed_join(group_metadata_manager& manager, std::shared_ptr<classic_group> group,
                         int32_t configured_delay_ms, int64_t delay_ms, int64_t remaining_ms);

    bool try_complete() override { return false; }

  protected:
    void on_complete() override;

  private:
    int32_t _configured_delay_ms;
    int64_t _remaining_ms;
};

}  // namespace samsa::coordinator
