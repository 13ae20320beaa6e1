#include "coordinator/group/delayed_sync.h"

#include "coordinator/group/classic_group.h"
#include "coordinator/group/group_metadata_manager.h"

namespace samsa::coordinator {

delayed_sync::delayed_sync(group_metadata_manager& manager, std::shared_ptr<classic_group> group,
                           int32_t generation_id, int64_t rebalance_timeout_ms)
    : delayed_operation(rebalance_timeout_ms),
      _manager(manager),
      _group(std::move(group)),
      _generation_id(generation_id) {}

bool delayed_sync::try_complete() {
    const bool in_sync_phase =
        _group->is(group_state::completing_rebalance) || _group->is(group_state::stable);
    if (!in_sync_phase || _group->generation_id() != _generation_id ||
        _group->pending_sync_members().empty()) {
        return force_complete();
    }
    return false;
}

void delayed_sync::on_expiration() {
    _manager.on_expire_pending_sync(_group, _generation_id);
}

}  // namespace samsa::coordinator
