#include "common/timing_wheel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

namespace samsa {
namespace {

// Records the timer's time when it runs.
class probe final : public timer_task {
  public:
    explicit probe(const timer& t, std::vector<int64_t>* log = nullptr) : _timer(t), _log(log) {}
    void run() override {
        ++runs;
        ran_at = _timer.now_ms();
        if (_log != nullptr) {
            _log->push_back(expiration_ms());
        }
    }
    int runs = 0;
    int64_t ran_at = -1;

  private:
    const timer& _timer;
    std::vector<int64_t>* _log;
};

// Advances to each deadline the timer reports, as the asio driver does.
// Returns the number of wakeups.
int drive_until(timer& t, int64_t end_ms) {
    int wakeups = 0;
    while (auto d = t.next_deadline()) {
        if (*d > end_ms) {
            break;
        }
        t.advance(*d);
        ++wakeups;
    }
    t.advance(end_ms);
    return wakeups;
}

TEST(timing_wheel, task_runs_at_its_tick_not_before) {
    timer t(1000);
    probe p(t);
    t.add_after(p, 5);
    EXPECT_TRUE(p.scheduled());
    EXPECT_EQ(p.expiration_ms(), 1005);
    EXPECT_EQ(t.advance(1004), 0u);
    EXPECT_EQ(p.runs, 0);
    EXPECT_EQ(t.advance(1005), 1u);
    EXPECT_EQ(p.runs, 1);
    EXPECT_EQ(p.ran_at, 1005);
    EXPECT_FALSE(p.scheduled());
    EXPECT_EQ(t.size(), 0u);
    t.advance(5000);
    EXPECT_EQ(p.runs, 1);
}

TEST(timing_wheel, each_delay_across_levels_runs_exactly_at_its_expiration) {
    // Kafka's shape: 1 ms ticks, 20 buckets; levels cover 20, 400, 8000,
    // 160000, 3.2e6 ms.
    const std::vector<int64_t> delays = {0, 1, 19, 20, 21, 399, 400, 401, 8000, 1'000'000};
    for (int64_t delay : delays) {
        SCOPED_TRACE(delay);
        timer t(7);
        probe p(t);
        t.add_after(p, delay);
        if (delay > 0) {
            t.advance(7 + delay - 1);
            EXPECT_EQ(p.runs, 0);
        }
        t.advance(7 + delay);
        EXPECT_EQ(p.runs, 1);
        EXPECT_EQ(t.size(), 0u);
    }
}

TEST(timing_wheel, delays_driven_by_next_deadline_run_on_time_with_few_wakeups) {
    const std::vector<int64_t> delays = {0, 1, 19, 20, 21, 400, 8000, 1'000'000};
    timer t(0);
    std::vector<std::unique_ptr<probe>> probes;
    for (int64_t d : delays) {
        probes.push_back(std::make_unique<probe>(t));
        t.add_after(*probes.back(), d);
    }
    EXPECT_EQ(t.size(), delays.size());
    int wakeups = drive_until(t, 2'000'000);
    for (size_t i = 0; i < delays.size(); ++i) {
        SCOPED_TRACE(delays[i]);
        EXPECT_EQ(probes[i]->runs, 1);
        EXPECT_EQ(probes[i]->ran_at, delays[i]);
    }
    // At most one wakeup per level a task passes through, not one per ms.
    EXPECT_LE(wakeups, 30);
    EXPECT_EQ(t.next_deadline(), std::nullopt);
}

TEST(timing_wheel, overflow_wheels_are_created_lazily_with_the_parent_interval) {
    timer t(0);
    EXPECT_EQ(t.wheel().tick_ms(), 1);
    EXPECT_EQ(t.wheel().interval_ms(), 20);
    EXPECT_EQ(t.wheel().overflow(), nullptr);

    probe a(t);
    t.add_after(a, 19);
    EXPECT_EQ(t.wheel().overflow(), nullptr);

    probe b(t);
    t.add_after(b, 20);
    ASSERT_NE(t.wheel().overflow(), nullptr);
    EXPECT_EQ(t.wheel().overflow()->tick_ms(), 20);
    EXPECT_EQ(t.wheel().overflow()->interval_ms(), 400);
    EXPECT_EQ(t.wheel().overflow()->overflow(), nullptr);

    probe c(t);
    t.add_after(c, 8000);
    const timing_wheel* l2 = t.wheel().overflow()->overflow();
    ASSERT_NE(l2, nullptr);
    EXPECT_EQ(l2->tick_ms(), 400);
    ASSERT_NE(l2->overflow(), nullptr);
    EXPECT_EQ(l2->overflow()->tick_ms(), 8000);
    EXPECT_EQ(l2->overflow()->interval_ms(), 160000);
}

TEST(timing_wheel, upper_bucket_expires_at_its_start_and_tasks_move_down) {
    timer t(0);
    probe p(t);
    t.add_after(p, 45);  // level 1 (ticks of 20): bucket [40, 60)
    EXPECT_EQ(t.next_deadline(), 40);
    EXPECT_EQ(t.advance(40), 0u);
    EXPECT_TRUE(p.scheduled());
    // Now in the lowest wheel, at its own millisecond.
    EXPECT_EQ(t.next_deadline(), 45);
    EXPECT_EQ(t.advance(45), 1u);
    EXPECT_EQ(p.ran_at, 45);
}

TEST(timing_wheel, cancel_is_immediate_and_idempotent) {
    timer t(0);
    probe a(t);
    probe b(t);
    t.add_after(a, 10);
    t.add_after(b, 10);
    EXPECT_EQ(t.size(), 2u);
    EXPECT_TRUE(a.cancel());
    EXPECT_FALSE(a.cancel());
    EXPECT_FALSE(a.scheduled());
    EXPECT_EQ(t.size(), 1u);
    t.advance(100);
    EXPECT_EQ(a.runs, 0);
    EXPECT_EQ(b.runs, 1);
}

TEST(timing_wheel, destroying_a_scheduled_task_cancels_it) {
    timer t(0);
    {
        probe p(t);
        t.add_after(p, 10);
        EXPECT_EQ(t.size(), 1u);
    }
    EXPECT_EQ(t.size(), 0u);
    EXPECT_EQ(t.advance(100), 0u);
}

TEST(timing_wheel, cancelled_buckets_do_not_wake_the_driver) {
    timer t(0);
    probe a(t);
    probe b(t);
    t.add_after(a, 5);
    t.add_after(b, 5000);
    EXPECT_EQ(t.next_deadline(), 5);
    a.cancel();
    // The bucket of `a` is empty: the next wakeup is b's upper bucket.
    EXPECT_EQ(t.next_deadline(), 4800);
    b.cancel();
    EXPECT_EQ(t.next_deadline(), std::nullopt);
    // A cancelled-then-reused bucket is queued again.
    t.add_after(a, 5);
    EXPECT_EQ(t.next_deadline(), 5);
    t.advance(5);
    EXPECT_EQ(a.runs, 1);
}

TEST(timing_wheel, rescheduling_moves_the_task) {
    timer t(0);
    probe p(t);
    t.add_after(p, 10);
    t.add_after(p, 300);
    EXPECT_EQ(t.size(), 1u);
    t.advance(299);
    EXPECT_EQ(p.runs, 0);
    t.advance(300);
    EXPECT_EQ(p.runs, 1);
}

TEST(timing_wheel, many_tasks_in_one_bucket_share_one_queue_entry) {
    timer t(0);
    std::vector<std::unique_ptr<probe>> probes;
    for (int i = 0; i < 10000; ++i) {
        probes.push_back(std::make_unique<probe>(t));
        t.add_after(*probes.back(), 7);
    }
    EXPECT_EQ(t.queued_buckets(), 1u);
    EXPECT_EQ(t.size(), 10000u);
    // Cancel every other one in O(1) each.
    for (size_t i = 0; i < probes.size(); i += 2) {
        probes[i]->cancel();
    }
    EXPECT_EQ(t.size(), 5000u);
    EXPECT_EQ(t.advance(6), 0u);
    EXPECT_EQ(t.advance(7), 5000u);
    for (size_t i = 0; i < probes.size(); ++i) {
        EXPECT_EQ(probes[i]->runs, i % 2 == 0 ? 0 : 1);
    }
}

TEST(timing_wheel, one_upper_bucket_spreads_to_each_tasks_own_millisecond) {
    timer t(0);
    std::vector<std::unique_ptr<probe>> probes;
    for (int64_t d = 20; d < 40; ++d) {  // all in level-1 bucket [20, 40)
        probes.push_back(std::make_unique<probe>(t));
        t.add_after(*probes.back(), d);
    }
    EXPECT_EQ(t.queued_buckets(), 1u);
    drive_until(t, 100);
    for (size_t i = 0; i < probes.size(); ++i) {
        EXPECT_EQ(probes[i]->ran_at, int64_t(20 + i));
    }
}

TEST(timing_wheel, a_large_jump_runs_everything_due_in_expiration_order) {
    timer t(0);
    std::vector<int64_t> log;
    std::vector<std::unique_ptr<probe>> probes;
    std::mt19937_64 rng(42);
    std::vector<int64_t> expected;
    for (int i = 0; i < 2000; ++i) {
        int64_t d = int64_t(rng() % 500000);
        probes.push_back(std::make_unique<probe>(t, &log));
        t.add_after(*probes.back(), d);
        if (d <= 250000) {
            expected.push_back(d);
        }
    }
    t.advance(250000);
    EXPECT_TRUE(std::is_sorted(log.begin(), log.end()));
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(log, expected);
    EXPECT_EQ(t.size(), 2000 - expected.size());
    t.advance(1'000'000);
    EXPECT_EQ(t.size(), 0u);
    EXPECT_EQ(log.size(), 2000u);
    EXPECT_TRUE(std::is_sorted(log.begin(), log.end()));
}

TEST(timing_wheel, tasks_added_after_a_jump_are_placed_from_the_present) {
    timer t(0);
    t.advance(1'000'000);  // nothing scheduled: the dial still moves
    EXPECT_EQ(t.wheel().current_time_ms(), 1'000'000);
    probe p(t);
    t.add_after(p, 3);
    EXPECT_EQ(t.wheel().overflow(), nullptr);
    EXPECT_EQ(t.next_deadline(), 1'000'003);
}

TEST(timing_wheel, past_deadlines_are_due_now_and_never_run_inline) {
    timer t(100);
    probe p(t);
    t.add(p, 50);
    EXPECT_EQ(p.runs, 0);
    EXPECT_TRUE(p.scheduled());
    EXPECT_EQ(t.next_deadline(), 100);
    EXPECT_EQ(t.advance(100), 1u);
    EXPECT_EQ(p.runs, 1);
}

TEST(timing_wheel, time_never_goes_back) {
    timer t(100);
    t.advance(50);
    EXPECT_EQ(t.now_ms(), 100);
    probe p(t);
    t.add_after(p, 1);
    t.advance(99);
    EXPECT_EQ(p.runs, 0);
    t.advance(101);
    EXPECT_EQ(p.runs, 1);
}

class periodic final : public timer_task {
  public:
    periodic(timer& t, int64_t period) : _timer(t), _period(period) {}
    void run() override {
        at.push_back(_timer.now_ms());
        if (at.size() < 5) {
            _timer.add_after(*this, _period);
        }
    }
    std::vector<int64_t> at;

  private:
    timer& _timer;
    int64_t _period;
};

TEST(timing_wheel, a_task_may_reschedule_itself_from_run) {
    timer t(0);
    periodic p(t, 30);
    t.add_after(p, 30);
    drive_until(t, 1000);
    EXPECT_EQ(p.at, (std::vector<int64_t>{30, 60, 90, 120, 150}));
}

TEST(timing_wheel, tasks_added_during_advance_and_already_due_run_in_the_same_call) {
    timer t(0);
    probe late(t);
    callback_task first([&] { t.add(late, 3); });
    t.add_after(first, 10);
    EXPECT_EQ(t.advance(10), 2u);
    EXPECT_EQ(late.runs, 1);
}

TEST(timing_wheel, a_running_task_may_cancel_another_in_its_bucket) {
    timer t(0);
    probe victim(t);
    callback_task killer([&] { victim.cancel(); });
    t.add_after(killer, 10);
    t.add_after(victim, 10);
    EXPECT_EQ(t.advance(10), 1u);
    EXPECT_EQ(victim.runs, 0);
    EXPECT_EQ(t.size(), 0u);
}

TEST(timing_wheel, coarse_ticks_run_within_one_tick_of_the_expiration) {
    timer t(0, /*tick_ms=*/10, /*wheel_size=*/8);
    std::vector<std::unique_ptr<probe>> probes;
    for (int64_t d = 0; d < 2000; d += 7) {
        probes.push_back(std::make_unique<probe>(t));
        t.add_after(*probes.back(), d);
    }
    drive_until(t, 5000);
    for (auto& p : probes) {
        EXPECT_EQ(p->runs, 1);
        EXPECT_LE(p->ran_at, p->expiration_ms());
        EXPECT_GT(p->ran_at, p->expiration_ms() - 10);
    }
}

TEST(timing_wheel, huge_delays_are_clamped_not_overflowed) {
    timer t(123);
    probe p(t);
    t.add(p, INT64_MAX);
    EXPECT_TRUE(p.scheduled());
    EXPECT_EQ(p.expiration_ms(), 123 + timer::max_delay_ms);
    auto d = t.next_deadline();
    ASSERT_TRUE(d.has_value());
    EXPECT_GT(*d, 123);
    t.advance(1'000'000'000);
    EXPECT_EQ(p.runs, 0);

    timer wide(0, 1, 1 << 16);  // intervals 2^16, 2^32, 2^48, then saturated
    probe q(wide);
    wide.add_after(q, INT64_MAX);
    EXPECT_TRUE(q.scheduled());
    wide.advance(timer::max_delay_ms - 1);
    EXPECT_EQ(q.runs, 0);
    wide.advance(timer::max_delay_ms);
    EXPECT_EQ(q.runs, 1);
}

TEST(timing_wheel, destroying_the_timer_unlinks_its_tasks) {
    probe* survivor = nullptr;
    auto dummy = std::make_unique<timer>(0);
    auto p = std::make_unique<probe>(*dummy);
    {
        timer t(0);
        t.add_after(*p, 50);
        survivor = p.get();
    }
    EXPECT_FALSE(survivor->scheduled());
    EXPECT_FALSE(survivor->cancel());
}

// Random adds, cancels and advances against a model: after advance(now),
// exactly the live tasks with expiration <= now have run, each once.
TEST(timing_wheel, matches_a_model_under_random_operations) {
    for (uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
        SCOPED_TRACE(seed);
        std::mt19937_64 rng(seed);
        for (int64_t wheel_size : {2, 3, 20, 64}) {
            timer t(int64_t(rng() % 1000), 1, wheel_size);
            std::vector<std::unique_ptr<probe>> probes;
            std::map<size_t, int64_t> live;  // index -> expiration
            for (int step = 0; step < 3000; ++step) {
                uint64_t r = rng() % 10;
                if (r < 5) {
                    int64_t d = int64_t(rng() % (rng() % 2 ? 50 : 100000));
                    probes.push_back(std::make_unique<probe>(t));
                    t.add_after(*probes.back(), d);
                    live[probes.size() - 1] = t.now_ms() + d;
                } else if (r < 7 && !live.empty()) {
                    auto it = live.begin();
                    std::advance(it, rng() % live.size());
                    ASSERT_TRUE(probes[it->first]->cancel());
                    live.erase(it);
                } else {
                    int64_t now = t.now_ms() + int64_t(rng() % (rng() % 2 ? 30 : 20000));
                    t.advance(now);
                    for (auto it = live.begin(); it != live.end();) {
                        if (it->second <= now) {
                            ASSERT_EQ(probes[it->first]->runs, 1);
                            it = live.erase(it);
                        } else {
                            ASSERT_EQ(probes[it->first]->runs, 0);
                            ++it;
                        }
                    }
                    ASSERT_EQ(t.size(), live.size());
                    if (auto d = t.next_deadline()) {
                        ASSERT_FALSE(live.empty());
                        int64_t first = live.begin()->second;
                        for (auto& [i, e] : live) {
                            first = std::min(first, e);
                        }
                        // Never later than the first task; earlier only as a
                        // bucket start on the way down.
                        ASSERT_LE(*d, first);
                        ASSERT_GT(*d, now);
                    } else {
                        ASSERT_TRUE(live.empty());
                    }
                }
            }
            for (auto& p : probes) {
                ASSERT_LE(p->runs, 1);
            }
        }
    }
}

}  // namespace
}  // namespace samsa
