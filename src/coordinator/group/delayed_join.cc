#include "coordinator/group/delayed_join.h"

#include <algorithm>

#include "coordinator/group/classic_group.h"
#include "coordinator/group/group_metadata_manager.h"

namespace samsa::coordinator {

delayed_join::delayed_join(group_metadata_manager& manager, std::shared_ptr<classic_group> group,
                           int64_t rebalance_timeout_ms)
    : delayed_operation(rebalance_timeout_ms), _manager(manager), _group(std::move(group)) {}

bool delayed_join::try_complete() {
    if (_group->is(group_state::dead) || _group->has_all_members_joined()) {
        return force_complete();
    }
    return false;
}

void delayed_join::on_complete() {
    _manager.on_complete_join(_group);
}

initial_delayed_join::initial_delayed_join(group_metadata_manager& manager,
                                           std::shared_ptr<classic_group> group,
                                           int32_t configured_delay_ms, int64_t delay_ms,
                                           int64_t remaining_ms)
    : delayed_join(manager, std::move(group), delay_ms),
      _configured_delay_ms(configured_delay_ms),
      _remaining_ms(remaining_ms) {}

void initial_delayed_join::on_complete() {
    if (_group->new_member_added && _remaining_ms != 0 && !_group->is(group_state::dead)) {
        _group->new_member_added = false;
        const int64_t delay = std::min<int64_t>(_configured_delay_ms, _remaining_ms);
        const int64_t remaining = std::max<int64_t>(_remaining_ms - delay, 0);
        _manager.schedule_initial_join(_group, delay, remaining);
        return;
    }
    delayed_join::on_complete();
}

}  // namespace samsa::coordinator
