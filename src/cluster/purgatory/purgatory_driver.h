#pragma once
// The per-shard clock of the purgatories: one timing wheel and one
// asio::steady_timer armed at the wheel's next deadline
// (docs/timing_wheel.md). Kafka runs an "expiration reaper" thread that polls
// its DelayQueue every 200 ms; here the reactor sleeps until the earliest
// bucket expires, so an idle shard never wakes and a 500 ms long-poll fetch
// completes at 500 ms. All purgatories of a shard (produce, fetch, join,
// heartbeat...) share one driver, hence one timer wakeup per deadline.
//
// Threading: owned by one shard; every call on that shard's thread.
// Lifetime: destroy it before its io_context and after its purgatories.
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "common/timing_wheel.h"

namespace samsa::cluster {

class purgatory_driver {
  public:
    // Milliseconds on a monotonic clock.
    using clock_fn = std::function<int64_t()>;
    static int64_t steady_clock_ms();

    // `clock` is injectable for tests; the steady_timer always waits real
    // time (deadline - clock()), so a fake clock is driven with poll().
    explicit purgatory_driver(asio::io_context::executor_type executor,
                              clock_fn clock = &purgatory_driver::steady_clock_ms,
                              int64_t tick_ms = 1, int64_t wheel_size = 20);
    ~purgatory_driver();
    purgatory_driver(const purgatory_driver&) = delete;
    purgatory_driver& operator=(const purgatory_driver&) = delete;

    // Schedules `task` to run `delay_ms` from now, re-arming the steady_timer
    // if that is earlier than its deadline. The task runs from poll(), never
    // inline, even with delay_ms <= 0.
    void schedule(timer_task& task, int64_t delay_ms);

    // Advances the wheel to clock(), runs every expired task, and re-arms the
    // steady_timer at the next deadline (or leaves it idle). Called by the
    // steady_timer; public so that tests with a fake clock drive time.
    // Returns the number of tasks run.
    size_t poll();

    int64_t now_ms() const { return _clock(); }
    asio::io_context::executor_type executor() const { return _executor; }
    timer& wheel() { return _timer; }
    // The deadline the steady_timer waits for, if it waits.
    std::optional<int64_t> armed_deadline() const { return _armed_ms; }
    // How many times the steady_timer fired (idle shards stay at zero).
    size_t wakeups() const { return _wakeups; }

  private:
    void arm();

    asio::io_context::executor_type _executor;
    clock_fn _clock;
    timer _timer;
    asio::steady_timer _steady;
    std::optional<int64_t> _armed_ms;
    size_t _wakeups = 0;
    bool _polling = false;
    // Expires with the driver: a wait that completed but whose handler has
    // not run yet must not touch a destroyed driver.
    std::shared_ptr<char> _alive = std::make_shared<char>();
};

}  // namespace samsa::cluster
