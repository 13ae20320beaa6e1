// commit-latency-avg/max: append-to-commit times of the leader's batches over
// the last 30 s, nothing while none committed, and nothing carried over a
// leadership change.
#include "raft/commit_latency.h"

#include <gtest/gtest.h>

namespace samsa::raft {
namespace {

raft_time at(int64_t ms) {
    return raft_time::from_ms(ms);
}

TEST(commit_latency_test, a_batch_counts_once_the_high_watermark_passes_its_last_offset) {
    commit_latency c;
    EXPECT_FALSE(c.average_ms(at(0)));
    c.appended(raft_offset(4), at(100));
    c.appended(raft_offset(9), at(110));
    c.committed(raft_offset(5), at(130));  // offsets 0..4: the first batch
    EXPECT_EQ(c.average_ms(at(130)), 30.0);
    c.committed(raft_offset(10), at(150));
    EXPECT_EQ(c.average_ms(at(150)), 35.0);
    EXPECT_EQ(c.max_ms(at(150)), 40);
}

TEST(commit_latency_test, samples_leave_the_window_after_30_s) {
    commit_latency c;
    c.appended(raft_offset(0), at(0));
    c.committed(raft_offset(1), at(50));
    c.appended(raft_offset(1), at(20000));
    c.committed(raft_offset(2), at(20010));
    EXPECT_EQ(c.max_ms(at(30000)), 50);
    EXPECT_EQ(c.max_ms(at(30051)), 10);
    EXPECT_FALSE(c.max_ms(at(50011)));
}

TEST(commit_latency_test, a_new_leader_does_not_time_what_it_appended_before) {
    commit_latency c;
    c.appended(raft_offset(3), at(0));
    c.reset_pending();
    c.committed(raft_offset(10), at(90000));
    EXPECT_FALSE(c.average_ms(at(90000)));
}

}  // namespace
}  // namespace samsa::raft
