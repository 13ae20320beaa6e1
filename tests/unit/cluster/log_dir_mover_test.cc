// cluster/log_dir_mover.h: a replica copied into its future log while it
// takes writes, aligned after truncation and a moved log start, and swapped
// in when caught up.
#include "cluster/log_dir_mover.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "common/clock.h"
#include "record/batch_builder.h"

namespace samsa::cluster {
namespace {

namespace fs = std::filesystem;

const storage::topic_partition tp{"t", 0};

class log_dir_mover_test : public ::testing::Test {
  protected:
    void SetUp() override {
        auto base = fs::temp_directory_path() / "samsa-mover-XXXXXX";
        std::string tmpl = base.string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        _root = tmpl;
        storage::log_manager_config c;
        c.log_dirs = {_root + "/d1", _root + "/d2"};
        c.defaults.segment_bytes = 4096;  // several segments
        c.defaults.file_delete_delay_ms = 0;
        c.executor = [this](std::function<status()> job, std::function<void(status)> done) {
            if (_defer_flushes) {
                _deferred.emplace_back(std::move(job), std::move(done));
            } else {
                done(job());
            }
        };
        auto m = storage::log_manager::open(c, 0);
        ASSERT_TRUE(m) << m.err().message;
        _logs = std::move(*m);
        auto l = _logs->get_or_create(tp, uuid::random(), 0);
        ASSERT_TRUE(l);
        ASSERT_EQ(fs::path((*l)->dir()).parent_path(), fs::path(_root + "/d1"));
        _p = std::make_unique<partition>(tp, uuid::random(), node_id{1}, *l);
        lead(3);
    }
    void TearDown() override {
        _p.reset();
        _logs.reset();
        std::error_code ec;
        fs::remove_all(_root, ec);
    }

    void lead(int32_t epoch) {
        metadata::partition_registration reg;
        reg.partition = 0;
        reg.leader = node_id{1};
        reg.leader_epoch = epoch;
        reg.replicas = to_node_ids({1});
        reg.isr = to_node_ids({1});
        _p->update_registration(reg);
    }

    void produce(int batches) {
        for (int i = 0; i < batches; ++i) {
            record::batch_builder b(record::batch_options{});
            for (int r = 0; r < 5; ++r) {
                std::string v(100, char('a' + r));
                b.add(wall_clock_ms(), std::nullopt, as_bytes_view(v));
            }
            auto bytes = b.build();
            ASSERT_TRUE(bytes);
            auto out = _p->append_records(*bytes, 9, 1, wall_clock_ms());
            ASSERT_EQ(out.error.code, error_code::none) << out.error.message;
        }
    }

    std::shared_ptr<storage::log> start_move() {
        auto f = _logs->create_future(tp, _root + "/d2", 0);
        EXPECT_TRUE(f && *f);
        return f ? *f : nullptr;
    }

    // Steps until the move ends; how many steps it took.
    int run_move(int64_t chunk) {
        int steps = 0;
        while (auto f = _logs->get_future(tp)) {
            auto step = copy_to_future(*_p, *_logs, *f, chunk, wall_clock_ms());
            EXPECT_TRUE(step) << step.err().message;
            if (!step || ++steps > 10000) {
                break;
            }
        }
        return steps;
    }

    // Steps without flushing until the move swaps or waits for a flush.
    std::optional<move_state> run_until_caught_up(const std::shared_ptr<storage::log>& future) {
        for (int i = 0; i < 10000; ++i) {
            auto step = copy_to_future(*_p, *_logs, *future, 1 << 12, wall_clock_ms());
            EXPECT_TRUE(step) << step.err().message;
            if (!step || step->state != move_state::copying) {
                return step ? std::optional(step->state) : std::nullopt;
            }
        }
        return std::nullopt;
    }

    // Moves the replica back to the first dir.
    std::shared_ptr<storage::log> start_move_back() {
        auto f = _logs->create_future(tp, _root + "/d1", 0);
        EXPECT_TRUE(f && *f);
        return f ? *f : nullptr;
    }

    // Completes the oldest deferred flush (its completion may defer another).
    void run_deferred_one() {
        auto [job, done] = std::move(_deferred.front());
        _deferred.erase(_deferred.begin());
        done(job());
    }

    std::string _root;
    bool _defer_flushes = false;
    std::vector<std::pair<std::function<status()>, std::function<void(status)>>> _deferred;
    std::unique_ptr<storage::log_manager> _logs;
    std::unique_ptr<partition> _p;
};

TEST_F(log_dir_mover_test, copies_in_steps_while_writes_go_on_then_swaps) {
    produce(40);
    auto before = _p->log();
    auto future = start_move();
    int steps = 0;
    // Writes between steps: the copy chases them.
    for (; steps < 6; ++steps) {
        auto step = copy_to_future(*_p, *_logs, *future, 2048, wall_clock_ms());
        ASSERT_TRUE(step);
        EXPECT_EQ(step->state, move_state::copying);
        EXPECT_GT(step->bytes, 0);
        produce(1);
    }
    steps += run_move(2048);
    EXPECT_EQ(_p->log(), future);
    EXPECT_TRUE(before->failure());  // closed
    EXPECT_EQ(fs::path(_p->log()->dir()), fs::path(_root + "/d2/t-0"));
    EXPECT_EQ(_p->log()->log_end_offset(), 46 * 5);
    EXPECT_EQ(_p->high_watermark(), 46 * 5);
    EXPECT_EQ(_p->log()->leader_epochs().latest_epoch(), 3);
    // Every record reads back from the new log, and it takes writes.
    auto r = _p->read(kafka_offset(0), 1 << 20, isolation_level::read_uncommitted, true,
                      leader_epoch(3));
    ASSERT_EQ(r.error.code, error_code::none);
    EXPECT_GT(r.records.length, 0);
    produce(1);
    EXPECT_EQ(_p->log()->log_end_offset(), 47 * 5);
}

TEST_F(log_dir_mover_test, a_truncated_current_log_truncates_the_future_one) {
    produce(10);
    auto future = start_move();
    // One segment's worth (a step reads from one segment): past offset 20.
    auto first = copy_to_future(*_p, *_logs, *future, 4096, wall_clock_ms());
    ASSERT_TRUE(first);
    ASSERT_EQ(first->state, move_state::copying);
    ASSERT_GT(future->log_end_offset(), 20);
    ASSERT_LT(future->log_end_offset(), 50);
    // The replica became a follower and truncated, then took a new leader's
    // records in epoch 5: the same log end offset, different records.
    ASSERT_TRUE(_p->log()->truncate_to(20, 0));
    lead(5);
    produce(6);
    ASSERT_EQ(_p->log()->log_end_offset(), 50);
    run_move(1 << 20);
    ASSERT_EQ(_p->log(), future);
    auto epochs = future->leader_epochs();
    EXPECT_EQ(epochs.epoch_for_offset(19), 3);
    EXPECT_EQ(epochs.epoch_for_offset(20), 5);
    EXPECT_EQ(future->log_end_offset(), 50);
}

TEST_F(log_dir_mover_test, a_log_start_moved_past_the_copy_starts_it_there) {
    produce(30);
    auto future = start_move();
    ASSERT_TRUE(copy_to_future(*_p, *_logs, *future, 1024, wall_clock_ms()));
    ASSERT_LT(future->log_end_offset(), 100);
    auto moved = _p->delete_records(100, 0);
    ASSERT_TRUE(moved);
    run_move(1024);
    ASSERT_EQ(_p->log(), future);
    EXPECT_EQ(future->log_start_offset(), 100);
    EXPECT_EQ(future->log_end_offset(), 150);
}

TEST_F(log_dir_mover_test, a_flush_in_flight_holds_the_swap) {
    produce(3);
    auto future = start_move();
    // A durable-ack wait on the current log starts a flush that stays in
    // flight until the test runs it.
    _defer_flushes = true;
    std::optional<status> acked;
    _p->log()->when_durable(_p->log()->log_end_offset() - 1, [&](status s) { acked = s; });
    ASSERT_TRUE(_p->log()->flush_in_progress());
    auto step = copy_to_future(*_p, *_logs, *future, 1 << 20, wall_clock_ms());
    ASSERT_TRUE(step);
    EXPECT_EQ(step->state, move_state::caught_up);
    EXPECT_NE(_p->log(), future);
    for (auto& [job, done] : _deferred) {
        done(job());
    }
    _deferred.clear();
    ASSERT_TRUE(acked && *acked);  // the waiter was answered, not failed by a close
    step = copy_to_future(*_p, *_logs, *future, 1 << 20, wall_clock_ms());
    ASSERT_TRUE(step);
    EXPECT_EQ(step->state, move_state::moved);
    EXPECT_EQ(_p->log(), future);
}

// What the broker does (replica_manager::log_dir_move_step): with durable acks
// a flush starts as the last one completes, so a caught-up move swaps in that
// gap; writes that came during the flush are copied first, the waiter of the
// next flush is answered by the new log, and the future log never flushed on
// its own (its rename would race a flush).
TEST_F(log_dir_mover_test, the_swap_is_made_in_the_gap_between_back_to_back_flushes) {
    produce(3);
    auto future = start_move();
    ASSERT_EQ(run_until_caught_up(future), move_state::moved);  // nothing in flight: at once
    produce(3);
    future = start_move_back();
    _defer_flushes = true;
    auto current = _p->log();
    std::vector<std::pair<int64_t, error_code>> acked;
    auto ack = [&](int64_t off) {
        _p->log()->when_durable(off, [&, off](status s) { acked.emplace_back(off, s.code()); });
    };
    ack(current->log_end_offset() - 1);
    ASSERT_EQ(run_until_caught_up(future), move_state::caught_up);
    std::optional<move_state> swapped;
    current->after_flush([&] {
        for (swapped = move_state::copying; swapped == move_state::copying;) {
            auto step = copy_to_future(*_p, *_logs, *future, 1 << 20, wall_clock_ms());
            ASSERT_TRUE(step) << step.err().message;
            swapped = step->state;
        }
    });
    // Writes during the flush, and a waiter for the next one.
    produce(2);
    ack(current->log_end_offset() - 1);
    const int64_t end = current->log_end_offset();
    ASSERT_EQ(_deferred.size(), 1u);
    run_deferred_one();
    EXPECT_EQ(swapped, move_state::moved);
    ASSERT_EQ(_p->log(), future);
    EXPECT_EQ(future->log_end_offset(), end);
    ASSERT_EQ(acked.size(), 1u);  // the first flush's waiter; the second moved over
    EXPECT_EQ(acked[0].second, error_code::none);
    // The old log started no flush after the swap; the new one syncs what was
    // copied into it, and answers the waiter.
    ASSERT_EQ(_deferred.size(), 1u);
    run_deferred_one();
    ASSERT_EQ(acked.size(), 2u);
    EXPECT_EQ(acked[1], std::make_pair(end - 1, error_code::none));
    EXPECT_EQ(future->recovery_point(), end);
    EXPECT_TRUE(current->failure());  // closed
}

}  // namespace
}  // namespace samsa::cluster
