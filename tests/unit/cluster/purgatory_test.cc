#include "cluster/purgatory/purgatory.h"

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"

namespace samsa::cluster {
namespace {

// Completes once *available reaches `need`; counts what happened to it.
class counting_op final : public delayed_operation {
  public:
    counting_op(int64_t delay_ms, const int64_t* available, int64_t need)
        : delayed_operation(delay_ms), _available(available), _need(need) {}

    bool try_complete() override {
        ++tries;
        if (*_available >= _need) {
            return force_complete();
        }
        return false;
    }

    int tries = 0;
    int completes = 0;
    int expirations = 0;
    bool completed_by_timeout = false;
    std::function<void()> on_complete_hook;

  protected:
    void on_complete() override {
        ++completes;
        completed_by_timeout = expired();
        if (on_complete_hook) {
            on_complete_hook();
        }
    }
    void on_expiration() override { ++expirations; }

  private:
    const int64_t* _available;
    int64_t _need;
};

// A fake clock: tests move time by hand and call driver.poll().
class purgatory_test : public ::testing::Test {
  protected:
    std::shared_ptr<counting_op> make_op(int64_t delay_ms, int64_t need = 1) {
        return std::make_shared<counting_op>(delay_ms, &available, need);
    }

    int64_t now = 1'000'000;
    int64_t available = 0;
    // Declared first: destroyed after the driver and purgatory.
    asio::io_context io;
    purgatory_driver driver{io.get_executor(), [this] { return now; }};
    purgatory<std::string> fetches{"fetch", driver, /*purge_interval_requests=*/10};
};

TEST_F(purgatory_test, completes_at_once_without_watching_when_already_satisfied) {
    available = 5;
    auto op = make_op(500);
    EXPECT_TRUE(fetches.try_complete_else_watch(op, {"t-0"}));
    EXPECT_EQ(op->completes, 1);
    EXPECT_EQ(fetches.watched(), 0u);
    EXPECT_EQ(fetches.delayed(), 0u);
    EXPECT_EQ(driver.wheel().size(), 0u);
}

TEST_F(purgatory_test, completes_on_check_and_complete_once_its_condition_holds) {
    auto op = make_op(500);
    EXPECT_FALSE(fetches.try_complete_else_watch(op, {"t-0"}));
    EXPECT_EQ(fetches.watched("t-0"), 1u);
    EXPECT_EQ(fetches.delayed(), 1u);
    EXPECT_EQ(driver.wheel().size(), 1u);

    EXPECT_EQ(fetches.check_and_complete("t-0"), 0u);
    EXPECT_EQ(fetches.check_and_complete("t-1"), 0u);
    EXPECT_EQ(op->completes, 0);

    available = 1;
    EXPECT_EQ(fetches.check_and_complete("t-0"), 1u);
    EXPECT_EQ(op->completes, 1);
    EXPECT_FALSE(op->completed_by_timeout);
    EXPECT_EQ(fetches.watched(), 0u);
    EXPECT_EQ(fetches.watch_keys(), 0u);
    EXPECT_EQ(fetches.delayed(), 0u);
    // Its timeout is cancelled.
    EXPECT_EQ(driver.wheel().size(), 0u);
    now += 1000;
    driver.poll();
    EXPECT_EQ(op->expirations, 0);
    EXPECT_EQ(op->completes, 1);
}

TEST_F(purgatory_test, expires_exactly_once_at_its_timeout) {
    auto op = make_op(500);
    fetches.try_complete_else_watch(op, {"t-0"});
    now += 499;
    EXPECT_EQ(driver.poll(), 0u);
    EXPECT_EQ(op->completes, 0);
    now += 1;
    EXPECT_EQ(driver.poll(), 1u);
    EXPECT_EQ(op->completes, 1);
    EXPECT_EQ(op->expirations, 1);
    EXPECT_TRUE(op->completed_by_timeout);
    EXPECT_TRUE(op->expired());
    EXPECT_EQ(fetches.delayed(), 0u);

    now += 10000;
    driver.poll();
    available = 1;
    EXPECT_EQ(fetches.check_and_complete("t-0"), 0u);
    EXPECT_EQ(op->completes, 1);
    EXPECT_EQ(op->expirations, 1);
}

TEST_F(purgatory_test, completes_once_when_condition_and_timeout_meet_in_one_tick) {
    // Timeout first, then the check: the check finds it completed.
    auto a = make_op(100);
    fetches.try_complete_else_watch(a, {"t-0"});
    now += 100;
    available = 1;
    driver.poll();
    EXPECT_EQ(fetches.check_and_complete("t-0"), 0u);
    EXPECT_EQ(a->completes, 1);
    EXPECT_EQ(a->expirations, 1);
    EXPECT_TRUE(a->completed_by_timeout);

    // The check first, then the timeout: the timeout was cancelled.
    available = 0;
    auto b = make_op(100);
    fetches.try_complete_else_watch(b, {"t-0"});
    now += 100;
    available = 1;
    EXPECT_EQ(fetches.check_and_complete("t-0"), 1u);
    driver.poll();
    EXPECT_EQ(b->completes, 1);
    EXPECT_EQ(b->expirations, 0);
    EXPECT_FALSE(b->completed_by_timeout);
}

TEST_F(purgatory_test, force_complete_wins_once) {
    auto op = make_op(100);
    fetches.try_complete_else_watch(op, {"t-0"});
    EXPECT_TRUE(op->force_complete());
    EXPECT_FALSE(op->force_complete());
    now += 100;
    driver.poll();
    available = 1;
    fetches.check_and_complete("t-0");
    EXPECT_EQ(op->completes, 1);
    EXPECT_EQ(op->expirations, 0);
}

TEST_F(purgatory_test, watched_under_several_keys_completes_once) {
    auto op = make_op(500);
    fetches.try_complete_else_watch(op, {"t-0", "t-1", "u-3"});
    EXPECT_EQ(fetches.watched(), 3u);
    available = 1;
    EXPECT_EQ(fetches.check_and_complete("t-1"), 1u);
    EXPECT_EQ(fetches.check_and_complete("t-0"), 0u);
    EXPECT_EQ(op->completes, 1);
    // The other lists drop it when they are next checked or purged.
    EXPECT_EQ(fetches.watched("t-1"), 0u);
    EXPECT_EQ(fetches.watched("t-0"), 0u);
    EXPECT_EQ(fetches.watched("u-3"), 1u);
    EXPECT_EQ(fetches.purge(), 1u);
    EXPECT_EQ(fetches.watched(), 0u);
    EXPECT_EQ(fetches.watch_keys(), 0u);
    now += 1000;
    driver.poll();
    EXPECT_EQ(op->completes, 1);
}

TEST_F(purgatory_test, check_and_complete_keeps_the_ops_not_satisfied_in_order) {
    std::vector<std::shared_ptr<counting_op>> ops;
    for (int64_t need = 1; need <= 5; ++need) {
        ops.push_back(make_op(500, need));
        fetches.try_complete_else_watch(ops.back(), {"t-0"});
    }
    available = 3;
    EXPECT_EQ(fetches.check_and_complete("t-0"), 3u);
    EXPECT_EQ(fetches.watched("t-0"), 2u);
    EXPECT_EQ(fetches.delayed(), 2u);
    available = 5;
    EXPECT_EQ(fetches.check_and_complete("t-0"), 2u);
    for (auto& op : ops) {
        EXPECT_EQ(op->completes, 1);
        // Tried once on watch, then once per check until done.
        EXPECT_LE(op->tries, 3);
    }
}

TEST_F(purgatory_test, completed_ops_still_listed_are_purged_after_the_interval) {
    std::vector<std::shared_ptr<counting_op>> ops;
    for (int i = 0; i < 30; ++i) {
        ops.push_back(make_op(500));
        fetches.try_complete_else_watch(ops.back(), {"leader", "follower"});
    }
    available = 1;
    EXPECT_EQ(fetches.check_and_complete("leader"), 30u);
    EXPECT_EQ(fetches.watched("follower"), 30u);
    EXPECT_EQ(fetches.purges(), 0u);  // posted, never inline
    io.poll();
    EXPECT_EQ(fetches.purges(), 1u);
    EXPECT_EQ(fetches.watched(), 0u);
}

TEST_F(purgatory_test, expired_ops_are_purged_too) {
    std::vector<std::weak_ptr<counting_op>> ops;
    for (int i = 0; i < 20; ++i) {
        auto op = make_op(50 + i);
        fetches.try_complete_else_watch(op, {"t-" + std::to_string(i % 3)});
        ops.push_back(op);
    }
    now += 100;
    EXPECT_EQ(driver.poll(), 20u);
    io.poll();
    EXPECT_EQ(fetches.watched(), 0u);
    // The lists held the last references.
    for (auto& w : ops) {
        EXPECT_TRUE(w.expired());
    }
}

TEST_F(purgatory_test, few_completions_do_not_trigger_a_purge) {
    auto done = make_op(500);
    fetches.try_complete_else_watch(done, {"a", "b"});
    available = 1;
    fetches.check_and_complete("a");
    io.poll();
    EXPECT_EQ(fetches.purges(), 0u);
    EXPECT_EQ(fetches.watched("b"), 1u);
}

TEST_F(purgatory_test, watch_lists_keep_pending_ops_alive) {
    std::weak_ptr<counting_op> weak;
    {
        auto op = make_op(100);
        fetches.try_complete_else_watch(op, {"t-0"});
        weak = op;
    }
    ASSERT_FALSE(weak.expired());
    now += 100;
    driver.poll();
    auto op = weak.lock();
    ASSERT_TRUE(op);
    EXPECT_EQ(op->expirations, 1);
}

TEST_F(purgatory_test, completions_may_watch_and_check_on_the_same_key) {
    auto first = make_op(500, 1);
    auto second = make_op(500, 2);
    auto third = make_op(500, 1);
    first->on_complete_hook = [&] {
        // A completion that starts new work on the partition...
        fetches.try_complete_else_watch(second, {"t-0"});
        // ...and one that checks it again, nested.
        fetches.check_and_complete("t-0");
    };
    fetches.try_complete_else_watch(first, {"t-0"});
    fetches.try_complete_else_watch(third, {"t-0"});
    available = 1;
    EXPECT_EQ(fetches.check_and_complete("t-0"), 2u);
    EXPECT_EQ(first->completes, 1);
    EXPECT_EQ(third->completes, 1);
    EXPECT_EQ(second->completes, 0);
    EXPECT_EQ(fetches.watched("t-0"), 1u);
    available = 2;
    EXPECT_EQ(fetches.check_and_complete("t-0"), 1u);
    EXPECT_EQ(second->completes, 1);
    EXPECT_EQ(fetches.watched(), 0u);
}

TEST_F(purgatory_test, purgatories_share_the_drivers_wheel) {
    purgatory<std::string> produces("produce", driver);
    auto f = make_op(300);
    auto p = make_op(100);
    fetches.try_complete_else_watch(f, {"t-0"});
    produces.try_complete_else_watch(p, {"t-0"});
    EXPECT_EQ(driver.wheel().size(), 2u);
    now += 100;
    driver.poll();
    EXPECT_EQ(p->expirations, 1);
    EXPECT_EQ(f->expirations, 0);
    EXPECT_EQ(produces.delayed(), 0u);
    EXPECT_EQ(fetches.delayed(), 1u);
}

TEST_F(purgatory_test, destroying_a_purgatory_abandons_its_pending_ops) {
    auto op = make_op(100);
    {
        purgatory<std::string> short_lived("short", driver);
        short_lived.try_complete_else_watch(op, {"t-0"});
        EXPECT_EQ(driver.wheel().size(), 1u);
    }
    EXPECT_EQ(driver.wheel().size(), 0u);
    now += 1000;
    driver.poll();
    EXPECT_EQ(op->completes, 0);
    EXPECT_FALSE(op->is_completed());
}

// The long-poll shape: a fetch keyed by partition that a coroutine awaits.
struct partition_key {
    std::string topic;
    int32_t partition;
    bool operator==(const partition_key&) const = default;
};
struct partition_key_hash {
    size_t operator()(const partition_key& k) const {
        return std::hash<std::string>{}(k.topic) * 31 + size_t(k.partition);
    }
};

partition_key t0() {
    return {"t", 0};
}
partition_key t1() {
    return {"t", 1};
}

struct fake_partition {
    int64_t high_watermark = 0;
};

struct fetch_result {
    error_code error = error_code::none;
    int64_t high_watermark = 0;
    bool timed_out = false;
};

class delayed_fetch final : public awaitable_operation<fetch_result> {
  public:
    delayed_fetch(int64_t max_wait_ms, const fake_partition& p, int64_t fetch_offset,
                  int64_t min_records)
        : awaitable_operation(max_wait_ms),
          _partition(p),
          _fetch_offset(fetch_offset),
          _min_records(min_records) {}

    bool try_complete() override {
        if (_partition.high_watermark - _fetch_offset >= _min_records) {
            return force_complete();
        }
        return false;
    }

  protected:
    // Kafka reads the log again here; a timeout answers with what is there.
    fetch_result make_result() override {
        return {error_code::none, _partition.high_watermark, expired()};
    }

  private:
    const fake_partition& _partition;
    int64_t _fetch_offset;
    int64_t _min_records;
};

class fetch_wait_test : public ::testing::Test {
  protected:
    using fetch_purgatory = purgatory<partition_key, partition_key_hash>;

    // A handler: waits for data at offset 0 of t-0, or max_wait_ms.
    void spawn_fetch(fetch_purgatory& p, int64_t max_wait_ms) {
        asio::co_spawn(
            io,
            [&p, max_wait_ms, this]() -> asio::awaitable<void> {
                auto op = std::make_shared<delayed_fetch>(max_wait_ms, partition, 0, 1);
                fetch_result r = co_await p.wait_until_complete(op, t0());
                result = r;
                resumed_on_io_thread = io.get_executor().running_in_this_thread();
            },
            asio::detached);
    }

    int64_t now = 5'000;
    fake_partition partition;
    std::optional<fetch_result> result;
    bool resumed_on_io_thread = false;
    asio::io_context io;
    purgatory_driver driver{io.get_executor(), [this] { return now; }};
    fetch_purgatory fetches{"fetch", driver};
};

TEST_F(fetch_wait_test, coroutine_resumes_with_the_result_when_data_arrives) {
    spawn_fetch(fetches, 500);
    io.poll();
    EXPECT_FALSE(result);
    EXPECT_EQ(fetches.delayed(), 1u);

    partition.high_watermark = 3;
    EXPECT_EQ(fetches.check_and_complete(t0()), 1u);
    // Never resumed from inside check_and_complete.
    EXPECT_FALSE(result);
    io.poll();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->high_watermark, 3);
    EXPECT_FALSE(result->timed_out);
    EXPECT_TRUE(resumed_on_io_thread);
}

TEST_F(fetch_wait_test, coroutine_resumes_with_the_timeout_result_at_max_wait) {
    spawn_fetch(fetches, 500);
    io.poll();
    now += 499;
    driver.poll();
    io.poll();
    EXPECT_FALSE(result);
    now += 1;
    driver.poll();
    EXPECT_FALSE(result);
    io.poll();
    ASSERT_TRUE(result);
    EXPECT_TRUE(result->timed_out);
    EXPECT_EQ(result->high_watermark, 0);
    // A later append finds nothing to complete.
    partition.high_watermark = 1;
    EXPECT_EQ(fetches.check_and_complete(t0()), 0u);
}

TEST_F(fetch_wait_test, coroutine_resumes_through_the_executor_when_already_satisfied) {
    partition.high_watermark = 7;
    spawn_fetch(fetches, 500);
    io.poll();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->high_watermark, 7);
    EXPECT_EQ(fetches.watched(), 0u);
    EXPECT_EQ(driver.wheel().size(), 0u);
}

TEST_F(fetch_wait_test, many_waiters_on_one_partition_all_resume) {
    int resumed = 0;
    for (int i = 0; i < 100; ++i) {
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                auto op = std::make_shared<delayed_fetch>(1000, partition, 0, 1);
                co_await fetches.wait_until_complete(op, t0());
                ++resumed;
            },
            asio::detached);
    }
    io.poll();
    EXPECT_EQ(fetches.delayed(), 100u);
    partition.high_watermark = 1;
    EXPECT_EQ(fetches.check_and_complete(t0()), 100u);
    io.poll();
    EXPECT_EQ(resumed, 100);
}

TEST_F(fetch_wait_test, a_wait_on_several_partitions_resumes_once) {
    int resumed = 0;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            auto op = std::make_shared<delayed_fetch>(1000, partition, 0, 1);
            std::vector<partition_key> keys = {t0(), t1()};
            result = co_await fetches.wait_until_complete(op, keys);
            ++resumed;
        },
        asio::detached);
    io.poll();
    EXPECT_EQ(fetches.watched(), 2u);
    partition.high_watermark = 1;
    EXPECT_EQ(fetches.check_and_complete(t1()), 1u);
    EXPECT_EQ(fetches.check_and_complete(t0()), 0u);
    now += 1000;
    driver.poll();
    io.poll();
    EXPECT_EQ(resumed, 1);
    ASSERT_TRUE(result);
    EXPECT_FALSE(result->timed_out);
}

TEST_F(fetch_wait_test, callback_tokens_work_too) {
    auto op = std::make_shared<delayed_fetch>(500, partition, 0, 1);
    std::optional<fetch_result> got;
    fetches.async_wait_until_complete(op, {t0()}, [&](fetch_result r) { got = r; });
    now += 500;
    driver.poll();
    EXPECT_FALSE(got);
    io.poll();
    ASSERT_TRUE(got);
    EXPECT_TRUE(got->timed_out);
}

TEST_F(fetch_wait_test, destroying_the_purgatory_destroys_a_waiting_coroutine) {
    struct guard {
        bool* destroyed;
        ~guard() { *destroyed = true; }
    };
    bool frame_destroyed = false;
    auto p = std::make_unique<fetch_purgatory>("fetch", driver);
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            guard g{&frame_destroyed};
            auto op = std::make_shared<delayed_fetch>(500, partition, 0, 1);
            result = co_await p->wait_until_complete(op, t0());
        },
        asio::detached);
    io.poll();
    EXPECT_FALSE(frame_destroyed);
    p.reset();
    io.poll();
    EXPECT_TRUE(frame_destroyed);
    EXPECT_FALSE(result);
    EXPECT_EQ(driver.wheel().size(), 0u);
}

// The real clock and the real steady_timer, with bounded waits.
class steady_driver_test : public ::testing::Test {
  protected:
    asio::io_context io;
    purgatory_driver driver{io.get_executor()};
    fake_partition partition;
    purgatory<partition_key, partition_key_hash> fetches{"fetch", driver};
};

TEST_F(steady_driver_test, long_poll_completes_at_max_wait_with_few_wakeups) {
    std::optional<fetch_result> result;
    const auto start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point done;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            auto op = std::make_shared<delayed_fetch>(60, partition, 0, 1);
            result = co_await fetches.wait_until_complete(op, t0());
            done = std::chrono::steady_clock::now();
        },
        asio::detached);
    // Returns as soon as nothing is pending: the driver arms no timer when
    // the wheel is empty.
    io.run_for(std::chrono::seconds(10));
    ASSERT_TRUE(result);
    EXPECT_TRUE(result->timed_out);
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(done - start).count();
    // The clock counts whole milliseconds, as Kafka's does: up to 1 ms early.
    EXPECT_GE(waited, 59);
    EXPECT_LT(waited, 5000);
    // One wakeup per wheel level the deadline passes through, not one per ms.
    EXPECT_GE(driver.wakeups(), 1u);
    EXPECT_LE(driver.wakeups(), 4u);
    EXPECT_FALSE(driver.armed_deadline());
}

TEST_F(steady_driver_test, a_far_timeout_costs_no_wakeups_meanwhile) {
    auto far = std::make_shared<delayed_fetch>(60'000, partition, 0, 1);
    fetches.try_complete_else_watch(far, {t0()});
    ASSERT_TRUE(driver.armed_deadline());
    EXPECT_GE(*driver.armed_deadline() - driver.now_ms(), 1000);
    io.run_for(std::chrono::milliseconds(50));
    EXPECT_EQ(driver.wakeups(), 0u);
    EXPECT_FALSE(far->is_completed());
}

TEST_F(steady_driver_test, an_earlier_deadline_rearms_the_timer) {
    auto far = std::make_shared<delayed_fetch>(60'000, partition, 0, 1);
    fetches.try_complete_else_watch(far, {t0()});
    const int64_t far_armed = *driver.armed_deadline();
    auto near = std::make_shared<delayed_fetch>(20, partition, 0, 1);
    fetches.try_complete_else_watch(near, {t1()});
    EXPECT_LT(*driver.armed_deadline(), far_armed);
    const auto start = std::chrono::steady_clock::now();
    while (!near->is_completed() &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
        io.run_one_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(near->is_completed());
    EXPECT_TRUE(near->expired());
    EXPECT_FALSE(far->is_completed());
    // Back to waiting for the far one.
    ASSERT_TRUE(driver.armed_deadline());
    EXPECT_GE(*driver.armed_deadline() - driver.now_ms(), 1000);
}

TEST_F(steady_driver_test, data_arriving_completes_before_the_timeout) {
    std::optional<fetch_result> result;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            auto op = std::make_shared<delayed_fetch>(60'000, partition, 0, 1);
            result = co_await fetches.wait_until_complete(op, t0());
        },
        asio::detached);
    // An append some 10 ms later, from the same shard.
    asio::steady_timer append(io, std::chrono::milliseconds(10));
    append.async_wait([&](const asio::error_code&) {
        partition.high_watermark = 2;
        fetches.check_and_complete(t0());
    });
    const auto start = std::chrono::steady_clock::now();
    while (!result && std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
        io.run_one_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(result);
    EXPECT_FALSE(result->timed_out);
    EXPECT_EQ(result->high_watermark, 2);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace samsa::cluster
