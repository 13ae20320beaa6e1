// The leader's side of replication on one partition: the high watermark over
// the ISR, acks=all completions, the caught-up rule, ISR proposals, diverging
// epochs; and the follower's append and truncation.
#include <gtest/gtest.h>

#include <filesystem>

#include "cluster/partition.h"
#include "common/clock.h"
#include "record/batch_builder.h"

namespace samsa::cluster {
namespace {

class replication_test : public ::testing::Test {
  protected:
    void SetUp() override {
        auto base = std::filesystem::temp_directory_path() / "samsa-replication-XXXXXX";
        std::string tmpl = base.string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        _dir = tmpl;
        _leader = open(1, "leader");
        _follower = open(2, "follower");
        lead(_leader.get(), {1, 2, 3}, {1, 2, 3}, 5);
        lead(_follower.get(), {1, 2, 3}, {1, 2, 3}, 5);
        _leader->set_replication(1000, [this](const isr_proposal& p) { _proposals.push_back(p); });
    }
    void TearDown() override {
        _leader.reset();
        _follower.reset();
        std::error_code ec;
        std::filesystem::remove_all(_dir, ec);
    }

    std::unique_ptr<partition> open(int32_t node, const std::string& name) {
        storage::log_open_options o;
        o.dir = _dir + "/" + name + "/t-0";
        o.tp = {"t", 0};
        o.now_ms = wall_clock_ms();
        auto l = storage::log::open(o);
        EXPECT_TRUE(l);
        return std::make_unique<partition>(o.tp, uuid{}, node_id{node}, *l);
    }
    static void lead(partition* p, std::vector<int32_t> replicas, std::vector<int32_t> isr,
                     int32_t epoch, int32_t leader = 1, int32_t partition_epoch = 0) {
        metadata::partition_registration reg;
        reg.leader = node_id{leader};
        reg.leader_epoch = epoch;
        reg.partition_epoch = partition_epoch;
        reg.replicas = to_node_ids(replicas);
        reg.isr = to_node_ids(isr);
        p->update_registration(reg);
    }
    int64_t produce(int n) {
        record::batch_builder b;
        for (int i = 0; i < n; ++i) {
            std::string v = "v" + std::to_string(i);
            b.add(wall_clock_ms(), std::nullopt, as_bytes_view(v));
        }
        auto batch = b.build();
        EXPECT_TRUE(batch);
        auto out = _leader->append_records(*batch, 9, -1, wall_clock_ms());
        EXPECT_EQ(out.error.code, error_code::none);
        return out.last_offset + 1;
    }
    fetch_outcome follower_fetch(int32_t replica, int64_t offset, int32_t last_epoch = -1,
                                 int64_t now = wall_clock_ms()) {
        return _leader->read_for_follower(node_id{replica}, kafka_offset{offset}, 1 << 20, true,
                                          leader_epoch{5}, leader_epoch{last_epoch}, now);
    }

    std::string _dir;
    std::unique_ptr<partition> _leader;
    std::unique_ptr<partition> _follower;
    std::vector<isr_proposal> _proposals;
};

TEST_F(replication_test, high_watermark_is_the_smallest_isr_position) {
    const int64_t end = produce(4);
    EXPECT_EQ(_leader->high_watermark(), 0);  // followers unheard of in this epoch
    follower_fetch(2, end);
    EXPECT_EQ(_leader->high_watermark(), 0);  // 3 has not fetched
    follower_fetch(3, 2);
    EXPECT_EQ(_leader->high_watermark(), 2);
    follower_fetch(3, end);
    EXPECT_EQ(_leader->high_watermark(), end);
    // It never moves back, whatever a late fetch says.
    follower_fetch(2, 1);
    EXPECT_EQ(_leader->high_watermark(), end);
}

TEST_F(replication_test, acks_all_completes_when_the_isr_has_the_batch) {
    const int64_t end = produce(3);
    std::vector<error_code> done;
    _leader->when_replicated(kafka_offset{end}, [&](error_code ec) { done.push_back(ec); });
    follower_fetch(2, end);
    EXPECT_TRUE(done.empty());
    follower_fetch(3, end);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0], error_code::none);
    // A waiter of a leader that stops leading hears NOT_LEADER_OR_FOLLOWER.
    const int64_t more = produce(1);
    _leader->when_replicated(kafka_offset{more}, [&](error_code ec) { done.push_back(ec); });
    lead(_leader.get(), {1, 2, 3}, {1, 2, 3}, 6, 2);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[1], error_code::not_leader_or_follower);
}

// The fault harness's bug on purpose (SAMSA_UNSAFE_TEST_ACK_AT_LOG_END): acks=all
// answered before any follower has the batch.
TEST_F(replication_test, the_unsafe_test_switch_answers_acks_all_at_the_log_end) {
    const int64_t end = produce(3);
    std::vector<error_code> done;
    partition::set_unsafe_ack_at_log_end(true);
    _leader->when_replicated(kafka_offset{end}, [&](error_code ec) { done.push_back(ec); });
    partition::set_unsafe_ack_at_log_end(false);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0], error_code::none);
    EXPECT_EQ(_leader->high_watermark(), 0);  // nothing replicated
    _leader->when_replicated(kafka_offset{end}, [&](error_code ec) { done.push_back(ec); });
    EXPECT_EQ(done.size(), 1u);  // off again: waits for the ISR
}

TEST_F(replication_test, a_follower_joins_the_isr_once_at_the_high_watermark) {
    lead(_leader.get(), {1, 2, 3}, {1, 2}, 5, 1, 3);
    const int64_t end = produce(5);
    follower_fetch(2, end);
    ASSERT_EQ(_leader->high_watermark(), end);
    follower_fetch(3, 2);
    EXPECT_TRUE(_proposals.empty());  // behind the high watermark
    follower_fetch(3, end);
    ASSERT_EQ(_proposals.size(), 1u);
    EXPECT_EQ(_proposals[0].new_isr, to_node_ids({1, 2, 3}));
    EXPECT_EQ(_proposals[0].partition_epoch, 3);
    EXPECT_EQ(_proposals[0].leader_epoch, 5);
    // One proposal at a time: the next fetch does not repeat it.
    follower_fetch(3, end);
    EXPECT_EQ(_proposals.size(), 1u);
}

// The controller may commit an expansion before this leader hears of it, and
// may then elect the new member: from the moment it is proposed, a joining
// follower holds the high watermark back like an ISR member (Kafka's maximal
// ISR), or an acknowledged record could be missing on the next leader.
TEST_F(replication_test, a_proposed_follower_holds_the_high_watermark_until_it_is_answered) {
    lead(_leader.get(), {1, 2, 3}, {1, 2}, 5, 1, 3);
    const int64_t end = produce(5);
    follower_fetch(2, end);
    follower_fetch(3, end);
    ASSERT_EQ(_proposals.size(), 1u);
    const int64_t more = produce(5);
    follower_fetch(2, more);
    EXPECT_EQ(_leader->high_watermark(), end);  // 3 is not at `more` yet
    follower_fetch(3, more);
    EXPECT_EQ(_leader->high_watermark(), more);
    // The image commits the change: 3 is an ISR member like any other.
    lead(_leader.get(), {1, 2, 3}, {1, 2, 3}, 5, 1, 4);
    const int64_t last = produce(1);
    follower_fetch(2, last);
    EXPECT_EQ(_leader->high_watermark(), more);
}

TEST_F(replication_test, only_a_definite_refusal_releases_a_proposed_follower) {
    lead(_leader.get(), {1, 2, 3}, {1, 2}, 5, 1, 3);
    const int64_t t0 = wall_clock_ms();
    const int64_t end = produce(5);
    follower_fetch(2, end, -1, t0);
    follower_fetch(3, end, -1, t0);
    ASSERT_EQ(_proposals.size(), 1u);
    const int64_t more = produce(5);
    follower_fetch(2, more, -1, t0);
    // A timeout says nothing about whether the controller applied it: the
    // high watermark still waits for 3, and the same change is sent again.
    _leader->isr_change_failed(error_code::request_timed_out, t0);
    EXPECT_EQ(_leader->high_watermark(), end);
    _leader->maybe_shrink_isr(t0 + 600);
    ASSERT_EQ(_proposals.size(), 2u);
    EXPECT_EQ(_proposals[1].new_isr, to_node_ids({1, 2, 3}));
    // INELIGIBLE_REPLICA says no controller applied it: 3 no longer counts.
    _leader->isr_change_failed(error_code::ineligible_replica, t0 + 600);
    EXPECT_EQ(_leader->high_watermark(), more);
}

TEST_F(replication_test, a_new_partition_epoch_ends_a_pending_expansion) {
    lead(_leader.get(), {1, 2, 3}, {1, 2}, 5, 1, 3);
    const int64_t end = produce(5);
    follower_fetch(2, end);
    follower_fetch(3, end);
    ASSERT_EQ(_proposals.size(), 1u);
    // Another change committed first (the proposal's epoch is gone): the
    // image says 3 is not a member, and only the ISR counts again.
    lead(_leader.get(), {1, 2, 3}, {1, 2}, 5, 1, 4);
    const int64_t more = produce(5);
    follower_fetch(2, more);
    EXPECT_EQ(_leader->high_watermark(), more);
}

TEST_F(replication_test, a_follower_not_caught_up_for_the_lag_time_leaves_the_isr) {
    const int64_t t0 = wall_clock_ms();
    const int64_t end = produce(2);
    follower_fetch(2, end, -1, t0);
    follower_fetch(3, 0, -1, t0);  // behind, and not at the previous LEO either
    _leader->maybe_shrink_isr(t0 + 500);
    EXPECT_TRUE(_proposals.empty());        // within replica.lag.time.max.ms (1000)
    follower_fetch(2, end, -1, t0 + 1400);  // 2 keeps fetching at the end: caught up
    _leader->maybe_shrink_isr(t0 + 1500);
    ASSERT_EQ(_proposals.size(), 1u);
    EXPECT_EQ(_proposals[0].new_isr, to_node_ids({1, 2}));
}

// A check long after the last (the leader was paused: SIGSTOP, a stall, a
// clock jump) shrinks nothing that round: the followers fetch as soon as the
// leader runs again. One that still does not is dropped the round after.
TEST_F(replication_test, a_leader_that_did_not_run_gives_its_followers_one_more_round) {
    const int64_t t0 = wall_clock_ms();
    const int64_t end = produce(2);
    follower_fetch(2, end, -1, t0);
    follower_fetch(3, end, -1, t0);
    _leader->maybe_shrink_isr(t0 + 500);
    _leader->maybe_shrink_isr(t0 + 5500);  // 5 s later: the leader was stopped
    EXPECT_TRUE(_proposals.empty());
    follower_fetch(2, end, -1, t0 + 5510);  // 2 fetches at once; 3 is gone
    _leader->maybe_shrink_isr(t0 + 6000);
    ASSERT_EQ(_proposals.size(), 1u);
    EXPECT_EQ(_proposals[0].new_isr, to_node_ids({1, 2}));
}

TEST_F(replication_test, a_diverging_follower_is_told_where_its_epoch_ends) {
    const int64_t end = produce(3);  // epoch 5 from offset 0
    // The follower claims epoch 4 up to offset 7: the leader has nothing of
    // epoch 4; the largest epoch below is none, so it truncates to where
    // epoch 5 begins.
    auto o = follower_fetch(2, 7, 4);
    ASSERT_TRUE(o.diverging_epoch);
    EXPECT_EQ(o.records.length, 0);
    // A follower at our end in our epoch is fine and gets no divergence.
    auto ok = follower_fetch(2, end, 5);
    EXPECT_FALSE(ok.diverging_epoch);
    EXPECT_EQ(ok.error.code, error_code::none);
}

TEST_F(replication_test, the_follower_appends_what_the_leader_sent_and_keeps_its_offsets) {
    const int64_t end = produce(6);
    follower_fetch(2, end);
    follower_fetch(3, end);
    // Follower side (node 2, led by 1).
    lead(_follower.get(), {1, 2, 3}, {1, 2, 3}, 5, 1);
    auto read = _leader->log()->read(kafka_offset{0}, 1 << 20, std::nullopt, true);
    ASSERT_TRUE(read);
    bytes data(size_t(read->records.length));
    ASSERT_EQ(::pread(read->records.fd(), data.data(), data.size(), read->records.position),
              ssize_t(data.size()));
    // A partial trailing batch (the leader cut at its byte limit) is left out.
    bytes cut(data.begin(), data.end() - 3);
    ASSERT_TRUE(_follower->append_as_follower(cut, end, wall_clock_ms()));
    EXPECT_EQ(_follower->log()->log_end_offset(), 0);
    ASSERT_TRUE(_follower->append_as_follower(data, end, wall_clock_ms()));
    EXPECT_EQ(_follower->log()->log_end_offset(), end);
    EXPECT_EQ(_follower->high_watermark(), end);
    EXPECT_EQ(_follower->last_log_epoch(), leader_epoch{5});
    ASSERT_TRUE(_follower->truncate_to(kafka_offset{2}, wall_clock_ms()));
    EXPECT_EQ(_follower->log()->log_end_offset(), 0);  // the whole batch holding 2 goes
}

// A follower that led an epoch of its own and wrote in it, told that the leader's
// epoch 5 ends at 9, keeps only what it has of epoch 5 (up to 6): the records
// it wrote as leader at 6.. are not the leader's.
TEST_F(replication_test, diverging_truncation_stops_where_the_logs_agree) {
    const int64_t end = produce(6);  // leader: epoch 5, offsets 0..5
    auto read = _leader->log()->read(kafka_offset{0}, 1 << 20, std::nullopt, true);
    ASSERT_TRUE(read);
    bytes data(size_t(read->records.length));
    ASSERT_EQ(::pread(read->records.fd(), data.data(), data.size(), read->records.position),
              ssize_t(data.size()));
    lead(_follower.get(), {1, 2, 3}, {1, 2, 3}, 5, 1);
    ASSERT_TRUE(_follower->append_as_follower(data, end, wall_clock_ms()));
    // The follower leads epoch 8 for a while and writes three records.
    lead(_follower.get(), {1, 2, 3}, {2}, 8, 2);
    record::batch_builder b;
    for (int i = 0; i < 3; ++i) {
        std::string v = "mine" + std::to_string(i);
        b.add(wall_clock_ms(), std::nullopt, as_bytes_view(v));
    }
    auto batch = b.build();
    ASSERT_TRUE(batch);
    ASSERT_EQ(_follower->append_records(*batch, 9, 1, wall_clock_ms()).error.code,
              error_code::none);
    ASSERT_EQ(_follower->log()->log_end_offset(), end + 3);
    ASSERT_EQ(_follower->last_log_epoch(), leader_epoch{8});
    // Back to following leader 1, whose epoch 5 went on to offset 9.
    lead(_follower.get(), {1, 2, 3}, {1, 3}, 9, 1);
    auto cut =
        _follower->truncate_to_diverging_epoch({leader_epoch{5}, kafka_offset{9}}, wall_clock_ms());
    ASSERT_TRUE(cut);
    EXPECT_EQ(*cut, end);
    EXPECT_EQ(_follower->last_log_epoch(), leader_epoch{5});
}

// KIP-207: while a new leader's high watermark lags the offset its epoch began
// at, "latest" (and a time past what is fetchable) is OFFSET_NOT_AVAILABLE,
// never an end below what consumers read from the previous leader.
TEST_F(replication_test, a_new_epoch_answers_offset_not_available_until_the_hw_catches_up) {
    const int64_t first = produce(4);
    follower_fetch(2, first);
    follower_fetch(3, first);
    ASSERT_EQ(_leader->high_watermark(), first);
    const int64_t end = produce(3);  // not yet replicated: the high watermark stays at `first`
    lead(_leader.get(), {1, 2, 3}, {1, 2, 3}, 6);
    ASSERT_EQ(_leader->high_watermark(), first);
    auto latest = _leader->list_offsets(storage::latest_timestamp,
                                        isolation_level::read_uncommitted, leader_epoch{6});
    EXPECT_EQ(latest.error.code, error_code::offset_not_available) << latest.error.message;
    auto later = _leader->list_offsets(wall_clock_ms() + 60'000, isolation_level::read_uncommitted,
                                       leader_epoch{6});
    EXPECT_EQ(later.error.code, error_code::offset_not_available);
    // The start of the log is there to read.
    auto earliest = _leader->list_offsets(storage::earliest_timestamp,
                                          isolation_level::read_uncommitted, leader_epoch{6});
    EXPECT_EQ(earliest.error.code, error_code::none);
    EXPECT_EQ(earliest.offset, 0);
    auto fetch6 = [&](int32_t replica, int64_t offset) {
        return _leader->read_for_follower(node_id{replica}, kafka_offset{offset}, 1 << 20, true,
                                          leader_epoch{6}, leader_epoch{-1}, wall_clock_ms());
    };
    fetch6(2, end);
    fetch6(3, end);
    ASSERT_EQ(_leader->high_watermark(), end);
    latest = _leader->list_offsets(storage::latest_timestamp, isolation_level::read_uncommitted,
                                   leader_epoch{6});
    EXPECT_EQ(latest.error.code, error_code::none);
    EXPECT_EQ(latest.offset, end);
}

}  // namespace
}  // namespace samsa::cluster
