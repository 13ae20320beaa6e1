#include "common/busy_time.h"

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <thread>

namespace samsa {
namespace {

using namespace std::chrono_literals;

// Keeps this thread busy for `d` (a step is timed by the wall clock, so a
// sleep would count as well; spinning says what is meant).
void spin(std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
    }
}

TEST(BusyTime, CountsTheStepsACoroutineRunsButNotItsWaits) {
    asio::io_context io;
    auto account = std::make_shared<busy_account>();
    busy_account* seen_in_step = nullptr;
    int64_t elapsed_inside = 0;
    bool done = false;
    auto work = [&]() -> asio::awaitable<void> {
        seen_in_step = current_busy_account();
        spin(20ms);
        asio::steady_timer wait(co_await asio::this_coro::executor, 300ms);
        co_await wait.async_wait(asio::use_awaitable);
        spin(20ms);
        elapsed_inside = account->elapsed_ns();
        done = true;
    };
    const auto start = std::chrono::steady_clock::now();
    asio::co_spawn(busy_executor(io.get_executor(), account), work(), asio::detached);
    io.run();
    const auto wall = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(done);
    EXPECT_EQ(seen_in_step, account.get());
    EXPECT_EQ(current_busy_account(), nullptr);
    const auto busy = std::chrono::nanoseconds(account->total_ns.load());
    // Both spins, not the 300 ms wait (a loaded machine may stretch a spin's
    // step, never shrink it).
    EXPECT_GE(busy, 40ms);
    EXPECT_LT(busy, wall - 250ms);
    // Asked from inside a step, the running step counts too.
    EXPECT_GE(std::chrono::nanoseconds(elapsed_inside), 40ms);
}

TEST(BusyTime, WorkHandedToAnotherThreadCountsForTheAccountCurrentWhenHandedOut) {
    busy_account account;
    busy_account* inner_seen = nullptr;
    {
        busy_scope step(&account, true);
        busy_account* handed = current_busy_account();
        std::thread other([&] {
            busy_scope there(handed);
            inner_seen = current_busy_account();
            spin(15ms);
        });
        other.join();
    }
    EXPECT_EQ(inner_seen, &account);
    // The step's own time (which spans the other thread's) plus the work
    // there: at least both.
    EXPECT_GE(std::chrono::nanoseconds(account.total_ns.load()), 30ms);
    EXPECT_EQ(account.step_started_ns, 0);
}

TEST(BusyTime, WorkThatOutlivesItsRequestHoldsNoDanglingAccount) {
    auto account = std::make_shared<busy_account>();
    std::weak_ptr<busy_account> handle;
    {
        busy_scope step(account.get(), true);
        handle = current_busy_account_handle();
    }
    EXPECT_EQ(handle.lock(), account);
    account.reset();  // the request was answered
    // The handed-out work runs later: it finds no account and counts nothing.
    const auto held = handle.lock();
    EXPECT_EQ(held, nullptr);
    busy_scope late(held.get());
    EXPECT_EQ(current_busy_account(), nullptr);
    // An account not owned by a shared_ptr hands out nothing.
    busy_account on_stack;
    busy_scope step(&on_stack, true);
    EXPECT_TRUE(current_busy_account_handle().expired());
}

TEST(BusyTime, AStepRunInsideAnotherOfTheSameAccountIsNotCountedTwice) {
    busy_account account;
    {
        busy_scope outer(&account, true);
        spin(5ms);
        {
            busy_scope inner(&account, true);  // asio dispatching inline
            spin(5ms);
        }
        // The inner step added nothing: the outer one times it.
        EXPECT_EQ(account.total_ns.load(), 0);
        EXPECT_NE(account.step_started_ns, 0);
        EXPECT_GE(std::chrono::nanoseconds(account.elapsed_ns()), 10ms);
    }
    EXPECT_GE(std::chrono::nanoseconds(account.total_ns.load()), 10ms);
    EXPECT_EQ(account.step_started_ns, 0);
    EXPECT_EQ(current_busy_account(), nullptr);
}

TEST(BusyTime, NoAccountIsANoOp) {
    busy_scope none(nullptr, true);
    EXPECT_EQ(current_busy_account(), nullptr);
}

}  // namespace
}  // namespace samsa
