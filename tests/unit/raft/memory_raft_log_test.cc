#include "raft/memory_raft_log.h"

#include <gtest/gtest.h>

namespace samsa::raft {
namespace {

std::vector<bytes> recs(std::initializer_list<std::string> values) {
    std::vector<bytes> out;
    for (const auto& v : values) {
        out.emplace_back(v.begin(), v.end());
    }
    return out;
}

raft_epoch e(int32_t v) {
    return raft_epoch{v};
}
raft_offset o(int64_t v) {
    return raft_offset{v};
}

TEST(memory_raft_log, leader_appends_assign_consecutive_offsets) {
    memory_raft_log log;
    EXPECT_EQ(*log.append_as_leader(recs({"a", "b"}), e(1), control_record_type::none), o(1));
    EXPECT_EQ(*log.append_as_leader(recs({"c"}), e(1), control_record_type::none), o(2));
    EXPECT_EQ(log.end_offset(), o(3));
    EXPECT_EQ(log.last_epoch(), e(1));
    EXPECT_EQ(log.durable_end_offset(), o(0));
}

TEST(memory_raft_log, crash_loses_what_was_not_flushed) {
    memory_raft_log log;
    ASSERT_TRUE(log.append_as_leader(recs({"a"}), e(1), control_record_type::none));
    ASSERT_TRUE(log.flush());
    ASSERT_TRUE(log.append_as_leader(recs({"b", "c"}), e(1), control_record_type::none));
    log.crash();
    EXPECT_EQ(log.end_offset(), o(1));
    auto batches = log.read(o(0), 1 << 20);
    ASSERT_TRUE(batches);
    ASSERT_EQ(batches->size(), 1u);
}

TEST(memory_raft_log, end_offset_for_epoch_is_the_start_of_the_next_epoch) {
    memory_raft_log log;
    ASSERT_TRUE(log.append_as_leader(recs({"a", "b"}), e(1), control_record_type::none));
    ASSERT_TRUE(log.append_as_leader(recs({"c"}), e(3), control_record_type::none));
    ASSERT_TRUE(log.append_as_leader(recs({"d"}), e(3), control_record_type::none));
    EXPECT_EQ(log.end_offset_for_epoch(e(1)), (offset_and_epoch{o(2), e(1)}));
    // Epoch 2 is not in the log: the largest epoch below it answers.
    EXPECT_EQ(log.end_offset_for_epoch(e(2)), (offset_and_epoch{o(2), e(1)}));
    EXPECT_EQ(log.end_offset_for_epoch(e(3)), (offset_and_epoch{o(4), e(3)}));
    EXPECT_EQ(log.end_offset_for_epoch(e(9)), (offset_and_epoch{o(4), e(3)}));
    EXPECT_FALSE(log.end_offset_for_epoch(e(0)));
}

TEST(memory_raft_log, truncation_removes_whole_batches_and_their_epochs) {
    memory_raft_log log;
    ASSERT_TRUE(log.append_as_leader(recs({"a", "b"}), e(1), control_record_type::none));
    ASSERT_TRUE(log.append_as_leader(recs({"c", "d"}), e(2), control_record_type::none));
    ASSERT_TRUE(log.truncate_to(o(3)));
    EXPECT_EQ(log.end_offset(), o(2));
    EXPECT_EQ(log.last_epoch(), e(1));
    EXPECT_EQ(log.end_offset_for_epoch(e(2)), (offset_and_epoch{o(2), e(1)}));
}

TEST(memory_raft_log, follower_append_must_continue_the_log) {
    memory_raft_log log;
    raft_batch b{o(1), e(1), control_record_type::none, recs({"x"})};
    EXPECT_FALSE(log.append_as_follower({b}));
    b.base_offset = o(0);
    EXPECT_TRUE(log.append_as_follower({b}));
    EXPECT_EQ(log.end_offset(), o(1));
}

TEST(memory_raft_log, snapshot_truncation_moves_the_log_start) {
    memory_raft_log log;
    ASSERT_TRUE(log.append_as_leader(recs({"a", "b"}), e(1), control_record_type::none));
    ASSERT_TRUE(log.append_as_leader(recs({"c"}), e(2), control_record_type::none));
    ASSERT_TRUE(log.flush());
    auto data = std::make_shared<const bytes>(bytes{1, 2, 3});
    ASSERT_TRUE(log.store_snapshot({{o(2), e(1)}, data}));
    auto dropped = log.truncate_before_latest_snapshot();
    ASSERT_TRUE(dropped);
    EXPECT_TRUE(*dropped);
    EXPECT_EQ(log.start_offset(), o(2));
    EXPECT_FALSE(log.read(o(1), 100));
    EXPECT_EQ(log.epoch_for_offset(o(1)), e(1));  // the snapshot's
    EXPECT_EQ(log.end_offset_for_epoch(e(1)), (offset_and_epoch{o(2), e(1)}));
}

TEST(memory_raft_log, installing_a_snapshot_past_the_end_empties_the_log) {
    memory_raft_log log;
    ASSERT_TRUE(log.append_as_leader(recs({"a"}), e(1), control_record_type::none));
    auto data = std::make_shared<const bytes>(bytes{9});
    ASSERT_TRUE(log.store_snapshot({{o(10), e(4)}, data}));
    auto t = log.truncate_to_latest_snapshot();
    ASSERT_TRUE(t);
    EXPECT_TRUE(*t);
    EXPECT_EQ(log.start_offset(), o(10));
    EXPECT_EQ(log.end_offset(), o(10));
    EXPECT_EQ(log.last_epoch(), e(4));
}

}  // namespace
}  // namespace samsa::raft
