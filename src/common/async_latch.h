#pragma once
// async_latch: a coroutine waits until N completions have arrived, possibly
// from other threads. count_down() may be called from any thread; it posts to
// the waiter's executor, so the waiter's state is touched on its own thread.
//
//   auto latch = std::make_shared<async_latch>(executor);
//   latch->add(n);  ...  other threads: latch->count_down();
//   co_await latch->wait();
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <memory>

namespace samsa {

class async_latch : public std::enable_shared_from_this<async_latch> {
  public:
    explicit async_latch(asio::any_io_executor executor) : _timer(executor) {
        _timer.expires_at(asio::steady_timer::time_point::max());
    }

    // On the waiter's thread, before wait(). A count_down() may take effect
    // before the add() it answers (the waiter learns how many to wait for only
    // after starting them): the count is signed, and the wait ends when the
    // count_downs have caught up with the adds.
    void add(size_t n = 1) { _pending += int64_t(n); }

    // Any thread.
    void count_down() {
        asio::post(_timer.get_executor(), [self = shared_from_this()] {
            if (--self->_pending == 0) {
                self->_timer.cancel();
            }
        });
    }

    asio::awaitable<void> wait() {
        while (_pending > 0) {
            std::error_code ec;
            co_await _timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }

    // As wait(), giving up after `timeout`; false then. Later count_downs are
    // harmless (the latch lives as long as someone holds it).
    asio::awaitable<bool> wait_for(std::chrono::milliseconds timeout) {
        const auto deadline = asio::steady_timer::clock_type::now() + timeout;
        while (_pending > 0) {
            if (asio::steady_timer::clock_type::now() >= deadline) {
                _timer.expires_at(asio::steady_timer::time_point::max());
                co_return false;
            }
            _timer.expires_at(deadline);
            std::error_code ec;
            co_await _timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        co_return true;
    }

    // The executor the waiter runs on (where count_down() takes effect).
    asio::any_io_executor executor() { return _timer.get_executor(); }

  private:
    asio::steady_timer _timer;
    int64_t _pending = 0;
};

}  // namespace samsa
