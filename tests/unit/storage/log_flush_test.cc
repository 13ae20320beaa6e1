// storage/log_flush.cc: group commit, the flush policies, a failed flush,
// and the moments a log dir move needs (no flush in flight, the waiters
// handed over, a future log that does not flush on its own).
#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "storage/log_fixture.h"

namespace samsa::storage {
namespace {

TEST_F(log_fixture, group_commit_one_flush_covers_every_waiter_that_arrived_meanwhile) {
    manual_executor ex;
    auto l = open_log_with(ex);
    std::vector<int64_t> acked;
    auto r1 = append(*l, 1);
    l->when_durable(r1.last_offset, [&](status s) {
        ASSERT_TRUE(s);
        acked.push_back(r1.last_offset);
    });
    ASSERT_EQ(ex.jobs.size(), 1u);
    // Three more appends while the first flush runs: they wait for the next one.
    std::vector<append_result> more;
    for (int i = 0; i < 3; ++i) {
        more.push_back(append(*l, 1));
        l->when_durable(more.back().last_offset, [&, off = more.back().last_offset](status s) {
            ASSERT_TRUE(s);
            acked.push_back(off);
        });
    }
    EXPECT_EQ(ex.jobs.size(), 1u);
    ex.run_one();
    EXPECT_EQ(acked, (std::vector<int64_t>{0}));
    EXPECT_EQ(l->recovery_point(), 1);
    ASSERT_EQ(ex.jobs.size(), 1u);  // one flush for the three
    ex.run_one();
    EXPECT_EQ(acked, (std::vector<int64_t>{0, 1, 2, 3}));
    EXPECT_EQ(l->recovery_point(), 4);
    EXPECT_TRUE(ex.jobs.empty());
    // Already durable: answered at once.
    bool called = false;
    l->when_durable(2, [&](status s) { called = s.has_value(); });
    EXPECT_TRUE(called);
}

TEST_F(log_fixture, truncation_during_a_flush_fails_waiters_above_it) {
    manual_executor ex;
    auto l = open_log_with(ex);
    for (int i = 0; i < 4; ++i) {
        append(*l, 1);
    }
    l->update_high_watermark(4);
    std::vector<error_code> results(4, error_code::unknown_server_error);
    for (int64_t off = 0; off < 4; ++off) {
        l->when_durable(off, [&, off](status s) { results[size_t(off)] = s.code(); });
    }
    ASSERT_TRUE(l->truncate_to(2, 0));
    EXPECT_EQ(results[2], error_code::not_leader_or_follower);
    EXPECT_EQ(results[3], error_code::not_leader_or_follower);
    append(*l, 1);  // offset 2 again, not covered by the flush in flight
    ex.run_one();
    EXPECT_EQ(results[0], error_code::none);
    EXPECT_EQ(results[1], error_code::none);
    EXPECT_EQ(l->recovery_point(), 2);
}

TEST_F(log_fixture, flush_messages_and_flush_ms_policies) {
    config.flush_messages = 3;
    manual_executor ex;
    auto l = open_log_with(ex);
    append(*l, 1);
    append(*l, 1);
    EXPECT_TRUE(ex.jobs.empty());
    append(*l, 1);
    ASSERT_EQ(ex.jobs.size(), 1u);
    ex.run_one();
    EXPECT_EQ(l->recovery_point(), 3);
    config.flush_messages = std::numeric_limits<int64_t>::max();
    config.flush_ms = 1000;
    l->update_config(config);
    append(*l, 1, 1000, 0, 100);
    l->flush_if_due(500);
    EXPECT_TRUE(ex.jobs.empty());
    l->flush_if_due(1000);
    ASSERT_EQ(ex.jobs.size(), 1u);
    ex.run_one();
    EXPECT_EQ(l->recovery_point(), 4);
}

TEST_F(log_fixture, flush_failure_fails_the_log_and_its_waiters) {
    manual_executor ex;
    auto l = open_log_with(ex);
    append(*l, 1);
    error_code got = error_code::none;
    l->when_durable(0, [&](status s) { got = s.code(); });
    auto [job, done] = std::move(ex.jobs.front());
    ex.jobs.pop_front();
    done(error{error_code::kafka_storage_error, "fdatasync: EIO"});
    EXPECT_EQ(got, error_code::kafka_storage_error);
    ASSERT_TRUE(l->failure());
    auto b = producer_batch(1);
    EXPECT_EQ(l->append_as_leader(b, 0, 0).code(), error_code::kafka_storage_error);
    EXPECT_EQ(l->read(kafka_offset{0}, 100, std::nullopt, false).code(),
              error_code::kafka_storage_error);
}

TEST_F(log_fixture, after_flush_runs_in_the_gap_between_back_to_back_flushes) {
    manual_executor ex;
    auto l = open_log_with(ex);
    bool ran_at_once = false;
    l->after_flush([&] { ran_at_once = true; });
    EXPECT_TRUE(ran_at_once);  // no flush in flight

    std::vector<int64_t> acked;
    auto ack = [&](int64_t off) {
        l->when_durable(off, [&, off](status s) {
            ASSERT_TRUE(s);
            acked.push_back(off);
        });
    };
    ack(append(*l, 1).last_offset);
    ack(append(*l, 1).last_offset);  // waits for the next flush
    std::optional<bool> in_flight;
    std::vector<int64_t> acked_before;
    l->after_flush([&] {
        in_flight = l->flush_in_progress();
        acked_before = acked;
    });
    ex.run_one();
    ASSERT_TRUE(in_flight);
    EXPECT_FALSE(*in_flight);
    EXPECT_EQ(acked_before, (std::vector<int64_t>{0}));  // answered first
    ASSERT_EQ(ex.jobs.size(), 1u);                       // then the next flush
    in_flight.reset();
    ex.run_one();
    EXPECT_FALSE(in_flight);  // once
    EXPECT_EQ(acked, (std::vector<int64_t>{0, 1}));
}

TEST_F(log_fixture, a_failed_flush_drops_the_after_flush_hook) {
    manual_executor ex;
    auto l = open_log_with(ex);
    append(*l, 1);
    l->when_durable(0, [](status) {});
    bool ran = false;
    l->after_flush([&] { ran = true; });
    auto [job, done] = std::move(ex.jobs.front());
    ex.jobs.pop_front();
    done(error{error_code::kafka_storage_error, "fdatasync: EIO"});
    EXPECT_FALSE(ran);
    l->after_flush([&] { ran = true; });
    EXPECT_FALSE(ran);
}

TEST_F(log_fixture, waiters_taken_out_are_not_failed_by_a_close) {
    manual_executor ex;
    auto l = open_log_with(ex);
    append(*l, 1);
    std::optional<error_code> got;
    l->when_durable(0, [&](status s) { got = s.code(); });
    auto waiters = l->take_waiters();
    ASSERT_EQ(waiters.size(), 1u);
    EXPECT_EQ(waiters.begin()->first, 0);
    ASSERT_TRUE(l->close(false));
    EXPECT_FALSE(got);
    waiters.begin()->second(status());
    EXPECT_EQ(got, error_code::none);
}

TEST_F(log_fixture, a_log_without_background_flush_flushes_only_once_enabled) {
    config.segment_bytes = 1024;
    config.flush_messages = 1;
    manual_executor ex;
    auto l = open_log_with(ex, /*background_flush=*/false);
    for (int i = 0; i < 20; ++i) {
        append(*l, 1);
    }
    ASSERT_GT(l->segment_count(), 1u);  // rolled, and flush.messages reached
    EXPECT_TRUE(ex.jobs.empty());
    EXPECT_EQ(l->recovery_point(), 0);
    l->enable_background_flush();
    ASSERT_EQ(ex.jobs.size(), 1u);
    ex.run_one();
    EXPECT_EQ(l->recovery_point(), 20);
    append(*l, 1);  // flush.messages=1 acts again
    EXPECT_EQ(ex.jobs.size(), 1u);
}

}  // namespace
}  // namespace samsa::storage
