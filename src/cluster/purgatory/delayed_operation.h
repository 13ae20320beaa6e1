#pragma once
// Kafka's DelayedOperation (seed inventory DLY-08..10): work that finishes
// either when a condition becomes true (new data for a DelayedFetch, the high
// watermark passing the appended offsets for a DelayedProduce) or when its
// timeout passes, whichever comes first, and then exactly once.
//
// Life of an operation:
//   try_complete_else_watch: try_complete() once; if not done, watch keys and
//     arm the timeout.
//   check_and_complete(key): try_complete() again for the ops watching key.
//   timeout: expired() becomes true, then on_complete(), then on_expiration().
//   force_complete(): completes now, from anywhere on the shard.
// on_complete() runs exactly once, whichever path gets there first; the
// others see is_completed() and do nothing.
//
// Threading: an operation belongs to the shard of its purgatory and is only
// touched from that shard's thread, so unlike Kafka there are no locks.
#include <asio/associated_executor.hpp>
#include <asio/post.hpp>
#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "common/timing_wheel.h"

namespace samsa::cluster {

class purgatory_base;

class delayed_operation : public timer_task,
                          public std::enable_shared_from_this<delayed_operation> {
  public:
    // `delay_ms`: the timeout, counted from when the purgatory starts
    // watching the operation (Kafka's delayMs).
    explicit delayed_operation(int64_t delay_ms) : _delay_ms(delay_ms) {}
    ~delayed_operation() override = default;

    // Checks whether the operation can complete now; if it can, calls
    // force_complete() and returns what that returned. Must not block.
    virtual bool try_complete() = 0;

    // Completes the operation now unless it already completed: cancels the
    // timeout and calls on_complete(). True if this call completed it.
    bool force_complete();

    bool is_completed() const { return _completed; }
    // True once the timeout fired, before on_complete() runs: on_complete()
    // tells a timeout from success by it.
    bool expired() const { return _expired; }
    int64_t delay_ms() const { return _delay_ms; }

  protected:
    // The completion logic (build the response). Called exactly once, inline
    // from try_complete(), force_complete() or the timeout.
    virtual void on_complete() = 0;
    // Called after on_complete() when the operation timed out (Kafka uses it
    // for expiration metrics).
    virtual void on_expiration() {}
    // Called when the purgatory is destroyed with the operation pending: it
    // will never complete. Drop whatever waits for it.
    virtual void on_abandon() {}

  private:
    friend class purgatory_base;

    // The timeout, run by the timing wheel.
    void run() final;
    void abandon();

    int64_t _delay_ms;
    bool _completed = false;
    bool _expired = false;
    // Set while a purgatory watches the operation, so that it learns of the
    // completion (its purge accounting) whichever path completes it.
    purgatory_base* _owner = nullptr;
};

namespace detail {

// A type-erased, move-only completion handler that receives T: holds what
// asio::async_initiate hands over (for co_await, the suspended coroutine).
template <typename T>
class result_waiter {
  public:
    virtual ~result_waiter() = default;
    // Posts the handler with the result to its executor; never runs it
    // inline, so a coroutine never resumes inside check_and_complete().
    virtual void post(T result) = 0;
};

template <typename T, typename Handler, typename Executor>
class result_waiter_impl final : public result_waiter<T> {
  public:
    result_waiter_impl(Handler handler, Executor fallback)
        : _handler(std::move(handler)), _fallback(std::move(fallback)) {}

    void post(T result) override {
        auto ex = asio::get_associated_executor(_handler, _fallback);
        asio::post(ex, [h = std::move(_handler), r = std::move(result)]() mutable {
            std::move(h)(std::move(r));
        });
    }

  private:
    Handler _handler;
    Executor _fallback;
};

}  // namespace detail

// A delayed operation whose completion produces a value that a coroutine can
// await (purgatory::wait_until_complete). Subclasses implement
// try_complete() and make_result(); make_result() checks expired() to answer
// a timeout.
template <typename T>
class awaitable_operation : public delayed_operation {
  public:
    using result_type = T;
    using delayed_operation::delayed_operation;

    // Hands the waiter over; the purgatory calls it before the first
    // try_complete(), so every completion path reaches it.
    void set_waiter(std::unique_ptr<detail::result_waiter<T>> waiter) {
        assert(!_waiter);
        if (is_completed()) {
            assert(_result.has_value() && "result already taken");
            waiter->post(std::move(*_result));
            _result.reset();
            return;
        }
        _waiter = std::move(waiter);
    }

    // The result, for callers that do not wait through a waiter; valid once
    // completed and until a waiter takes it.
    const std::optional<T>& result() const { return _result; }

  protected:
    // Builds the result; called exactly once, on completion.
    virtual T make_result() = 0;

  private:
    void on_complete() final {
        _result.emplace(make_result());
        if (_waiter) {
            auto waiter = std::move(_waiter);
            waiter->post(std::move(*_result));
            _result.reset();
        }
    }
    void on_abandon() final { _waiter.reset(); }

    std::optional<T> _result;
    std::unique_ptr<detail::result_waiter<T>> _waiter;
};

}  // namespace samsa::cluster
