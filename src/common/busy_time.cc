#include "common/busy_time.h"

namespace samsa {

namespace {

thread_local busy_account* current_account = nullptr;

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

int64_t busy_account::elapsed_ns() const {
    const int64_t running = step_started_ns ? now_ns() - step_started_ns : 0;
    return total_ns.load(std::memory_order_relaxed) + running;
}

busy_account* current_busy_account() {
    return current_account;
}

std::weak_ptr<busy_account> current_busy_account_handle() {
    return current_account ? current_account->weak_from_this() : std::weak_ptr<busy_account>();
}

busy_scope::busy_scope(busy_account* account, bool step)
    : _account(account), _saved(current_account), _started_ns(0), _step(false) {
    if (!_account) {
        return;
    }
    current_account = _account;
    _started_ns = now_ns();
    // A step run inside another step of the same request (asio dispatches
    // inline) is already being timed by the outer one.
    _step = step && _account->step_started_ns == 0;
    if (_step) {
        _account->step_started_ns = _started_ns;
    } else if (step) {
        _started_ns = 0;
    }
}

busy_scope::~busy_scope() {
    if (!_account) {
        return;
    }
    if (_started_ns) {
        _account->total_ns.fetch_add(now_ns() - _started_ns, std::memory_order_relaxed);
    }
    if (_step) {
        _account->step_started_ns = 0;
    }
    current_account = _saved;
}

}  // namespace samsa
