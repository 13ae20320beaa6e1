#include "coordinator/group/delayed_heartbeat.h"

#include "coordinator/group/classic_group.h"
#include "coordinator/group/group_metadata_manager.h"

namespace samsa::coordinator {

std::string member_key(const std::string& group_id, const std::string& member_id) {
    // '\0' cannot end a group id that is followed by more text, so keys of
    // different (group, member) pairs never collide.
    std::string key;
    key.reserve(group_id.size() + 1 + member_id.size());
    key.append(group_id).push_back('\0');
    key.append(member_id);
    return key;
}

delayed_heartbeat::delayed_heartbeat(group_metadata_manager& manager,
                                     std::shared_ptr<classic_group> group, std::string member_id,
                                     bool is_pending, int64_t timeout_ms)
    : delayed_operation(timeout_ms),
      _manager(manager),
      _group(std::move(group)),
      _member_id(std::move(member_id)),
      _is_pending(is_pending) {}

bool delayed_heartbeat::try_complete() {
    if (_group->is(group_state::dead)) {
        return force_complete();
    }
    if (_is_pending) {
        // Done once the pending member joined with its id (or left).
        if (!_group->is_pending_member(_member_id)) {
            return force_complete();
        }
        return false;
    }
    const group_member* m = _group->get(_member_id);
    if (!m || m->has_satisfied_heartbeat()) {
        return force_complete();
    }
    return false;
}

void delayed_heartbeat::on_expiration() {
    _manager.on_expire_heartbeat(_group, _member_id, _is_pending);
}

}  // namespace samsa::coordinator
