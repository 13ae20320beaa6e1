#include "cluster/purgatory/purgatory_driver.h"

#include <chrono>

namespace samsa::cluster {

int64_t purgatory_driver::steady_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

purgatory_driver::purgatory_driver(asio::io_context::executor_type executor, clock_fn clock,
                                   int64_t tick_ms, int64_t wheel_size)
    : _executor(executor),
      _clock(std::move(clock)),
      _timer(_clock(), tick_ms, wheel_size),
      _steady(executor) {}

purgatory_driver::~purgatory_driver() {
    _alive.reset();
    _steady.cancel();
}

void purgatory_driver::schedule(timer_task& task, int64_t delay_ms) {
    // Absolute deadline from the present, not from the wheel's last advance:
    // the wheel places it correctly even when its dial lags.
    const int64_t now = _clock();
    _timer.add(task, delay_ms >= timer::max_delay_ms ? now + timer::max_delay_ms : now + delay_ms);
    if (!_polling) {
        arm();
    }
}

size_t purgatory_driver::poll() {
    if (_polling) {
        return 0;  // called from a task that is running: the loop below continues
    }
    _polling = true;
    const size_t ran = _timer.advance(_clock());
    _polling = false;
    arm();
    return ran;
}

void purgatory_driver::arm() {
    const std::optional<int64_t> next = _timer.next_deadline();
    if (!next) {
        // Nothing to wait for. A wait still pending fires once, finds
        // nothing, and stops: cheaper than cancelling on every completion.
        return;
    }
    if (_armed_ms && *_armed_ms <= *next) {
        return;
    }
    _armed_ms = *next;
    // expires_after() cancels a pending wait, whose handler then sees
    // operation_aborted and does nothing.
    const int64_t delay = *next - _clock();
    _steady.expires_after(std::chrono::milliseconds(delay > 0 ? delay : 0));
    _steady.async_wait([this, alive = std::weak_ptr<char>(_alive)](const asio::error_code& ec) {
        if (ec || alive.expired()) {
            return;
        }
        ++_wakeups;
        _armed_ms.reset();
        poll();
    });
}

}  // namespace samsa::cluster
