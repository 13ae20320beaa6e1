// Preferred and unclean leader election, ElectLeaders' per-partition answers,
// the automatic rebalance's imbalance ratio, and unclean election on fencing.
#include "metadata/leader_election.h"

#include <gtest/gtest.h>

#include "metadata/broker_fencing.h"
#include "metadata/metadata_delta.h"
#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

using namespace testing;

protocol::partition_change_record lead(const uuid& t, int32_t p, int32_t leader) {
    protocol::partition_change_record c;
    c.topic_id = t;
    c.partition_id = p;
    c.leader = node_id{leader};
    return c;
}

// Brokers 1-3; topic t with p0 [1,2,3] led by 2 (not preferred), p1 [2,3,1]
// led by 2, p2 [3,1,2] led by 3.
std::shared_ptr<const metadata_image> cluster() {
    const uuid t = test_uuid(7);
    return apply_all(std::make_shared<metadata_image>(),
                     {broker_rec(1, 10), broker_rec(2, 11), broker_rec(3, 12), topic_rec("t", t),
                      partition_rec(t, 0, {1, 2, 3}), partition_rec(t, 1, {2, 3, 1}),
                      partition_rec(t, 2, {3, 1, 2}), lead(t, 0, 2)});
}

TEST(leader_election, preferred_elects_the_first_replica_when_in_the_isr_and_alive) {
    auto image = cluster();
    const auto& t = *image->topic("t");
    auto o = elect(*image, t, t.partitions[0], election_type::preferred);
    ASSERT_TRUE(o.change);
    EXPECT_EQ(o.change->leader, node_id{1});
    EXPECT_EQ(elect(*image, t, t.partitions[1], election_type::preferred).error,
              error_code::election_not_needed);
    // Broker 1 fenced: not available.
    auto fenced = apply_all(image, plan_fence_broker(*image, node_id{1}));
    const auto& t2 = *fenced->topic("t");
    EXPECT_EQ(elect(*fenced, t2, t2.partitions[0], election_type::preferred).error,
              error_code::preferred_leader_not_available);
}

TEST(leader_election, elect_leaders_answers_each_named_partition) {
    auto image = cluster();
    protocol::elect_leaders_request req;
    req.election_type = 0;
    auto& tp = req.topic_partitions->emplace_back();
    tp.topic = "t";
    tp.partitions = {0, 1, 9};
    auto plan = plan_elect_leaders(*image, req, 1);
    ASSERT_EQ(plan.records.size(), 1u);
    ASSERT_EQ(plan.response.replica_election_results.size(), 1u);
    const auto& r = plan.response.replica_election_results[0].partition_result;
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].error_code, 0);
    EXPECT_EQ(r[1].error_code, to_wire(error_code::election_not_needed));
    EXPECT_EQ(r[2].error_code, to_wire(error_code::unknown_topic_or_partition));
    // Null partitions: every partition, answering only those elected.
    protocol::elect_leaders_request all;
    all.topic_partitions = std::nullopt;
    auto every = plan_elect_leaders(*image, all, 1);
    EXPECT_EQ(every.records.size(), 1u);
    ASSERT_EQ(every.response.replica_election_results.size(), 1u);
    EXPECT_EQ(every.response.replica_election_results[0].partition_result.size(), 1u);
}

TEST(leader_election, auto_rebalance_moves_leadership_above_the_imbalance_ratio) {
    auto image = cluster();
    // Broker 1 prefers one partition and leads none of them: 100% > 10%.
    auto records = plan_auto_leader_rebalance(*image, 10);
    ASSERT_EQ(records.size(), 1u);
    auto after = apply_all(image, records);
    EXPECT_EQ(after->topic("t")->partitions[0].leader, node_id{1});
    EXPECT_TRUE(plan_auto_leader_rebalance(*after, 10).empty());
    // A ratio at or below the threshold is left alone.
    EXPECT_TRUE(plan_auto_leader_rebalance(*image, 100).empty());
}

TEST(leader_election, unclean_election_only_when_enabled_and_no_isr_member_lives) {
    const uuid t = test_uuid(8);
    protocol::partition_change_record shrink;
    shrink.topic_id = t;
    shrink.partition_id = 0;
    shrink.isr = to_node_ids({1});
    auto image = apply_all(std::make_shared<metadata_image>(),
                           {broker_rec(1, 10), broker_rec(2, 11), topic_rec("u", t),
                            partition_rec(t, 0, {1, 2}), shrink});
    // Clean only: broker 1, the whole ISR, goes; nobody may lead.
    auto clean = apply_all(image, plan_fence_broker(*image, node_id{1}));
    EXPECT_EQ(clean->topic("u")->partitions[0].leader, node_id{-1});
    // Unclean allowed: broker 2 leads with an ISR of itself.
    auto unclean = apply_all(
        image, plan_fence_broker(*image, node_id{1}, [](const std::string&) { return true; }));
    EXPECT_EQ(unclean->topic("u")->partitions[0].leader, node_id{2});
    EXPECT_EQ(unclean->topic("u")->partitions[0].isr, to_node_ids({2}));
    // ElectLeaders type UNCLEAN on the leaderless partition does the same.
    const auto& u = *clean->topic("u");
    auto o = elect(*clean, u, u.partitions[0], election_type::unclean);
    ASSERT_TRUE(o.change);
    EXPECT_EQ(o.change->leader, node_id{2});
}

}  // namespace
}  // namespace samsa::metadata
