#include "cluster/purgatory/delayed_operation.h"

#include "cluster/purgatory/purgatory.h"

namespace samsa::cluster {

bool delayed_operation::force_complete() {
    if (_completed) {
        return false;
    }
    // The watch lists may hold the last references, and on_complete() may
    // lead to a check_and_complete() that drops them: stay alive until done.
    auto self = weak_from_this().lock();
    _completed = true;
    cancel();
    if (purgatory_base* owner = std::exchange(_owner, nullptr)) {
        owner->operation_completed();
    }
    on_complete();
    return true;
}

void delayed_operation::run() {
    auto self = weak_from_this().lock();
    // Completion cancels the timeout, so the operation is pending here.
    _expired = true;
    if (force_complete()) {
        on_expiration();
    }
}

void delayed_operation::abandon() {
    cancel();
    _owner = nullptr;
    on_abandon();
}

}  // namespace samsa::cluster
