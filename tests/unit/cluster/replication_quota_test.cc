// The replication throttle's rate against its bound (cluster/replication_quota.h)
// and which replicas a topic's throttled-replica list names.
#include "cluster/replication_quota.h"

#include <gtest/gtest.h>

namespace samsa::cluster {
namespace {

TEST(replication_quota, unbounded_is_never_exceeded) {
    replication_quota q(2, 1000);
    q.record(int64_t(1) << 40, 0);
    EXPECT_FALSE(q.is_exceeded(0));
    EXPECT_EQ(q.bound(), replication_quota::unbounded);
}

TEST(replication_quota, exceeded_while_the_rate_is_above_the_bound) {
    replication_quota q(2, 1000);
    q.set_bound(1000);
    EXPECT_FALSE(q.is_exceeded(0));
    q.record(900, 0);
    EXPECT_FALSE(q.is_exceeded(0));  // 900 B over at least one second
    q.record(300, 100);
    EXPECT_TRUE(q.is_exceeded(100));  // 1200 B over 1.1 s
    // Two samples of a second: once the first has aged out the rate is back
    // under the bound.
    EXPECT_FALSE(q.is_exceeded(2500));
    EXPECT_DOUBLE_EQ(q.rate(2500), 0.0);
    q.set_bound(replication_quota::unbounded);
    q.record(1'000'000, 2600);
    EXPECT_FALSE(q.is_exceeded(2600));
}

TEST(replication_quota, nothing_recorded_for_empty_reads) {
    replication_quota q(2, 1000);
    q.set_bound(1);
    q.record(0, 0);
    q.record(-5, 0);
    EXPECT_FALSE(q.is_exceeded(0));
}

TEST(replica_throttled, pairs_name_partition_and_broker) {
    const std::vector<std::string> list{"0:1", "2:3", "bad", "4:x"};
    EXPECT_TRUE(replica_throttled(list, 0, node_id{1}));
    EXPECT_TRUE(replica_throttled(list, 2, node_id{3}));
    EXPECT_FALSE(replica_throttled(list, 0, node_id{3}));
    EXPECT_FALSE(replica_throttled(list, 1, node_id{1}));
    EXPECT_FALSE(replica_throttled(list, 4, node_id{0}));
    EXPECT_FALSE(replica_throttled({}, 0, node_id{1}));
    EXPECT_TRUE(replica_throttled({"*"}, 7, node_id{9}));
}

}  // namespace
}  // namespace samsa::cluster
