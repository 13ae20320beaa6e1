// Fencing and unfencing a broker: the records the controller writes and the
// leader election rule (first replica of the assignment in the ISR and alive).
#include "metadata/broker_fencing.h"

#include <gtest/gtest.h>

#include "metadata/metadata_delta.h"
#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

using namespace testing;

// Brokers 1-3 alive; topic t: p0 [1,2,3], p1 [2,3,1], p2 [3,1,2] (leaders 1,2,3),
// p3 [1] (a single replica on broker 1).
std::shared_ptr<const metadata_image> three_brokers() {
    const uuid t = test_uuid(9);
    return apply_all(std::make_shared<metadata_image>(),
                     {broker_rec(1, 10), broker_rec(2, 11), broker_rec(3, 12), topic_rec("t", t),
                      partition_rec(t, 0, {1, 2, 3}), partition_rec(t, 1, {2, 3, 1}),
                      partition_rec(t, 2, {3, 1, 2}), partition_rec(t, 3, {1})});
}

TEST(elect_leader, first_alive_replica_of_the_assignment_in_the_isr) {
    auto alive = [](node_id id) { return id != node_id{2}; };
    const auto assignment = to_node_ids({2, 3, 1});
    // 2 is down: next in order
    EXPECT_EQ(elect_leader(assignment, to_node_ids({1, 2, 3}), alive), node_id{3});
    // 3 is out of the ISR
    EXPECT_EQ(elect_leader(assignment, to_node_ids({1, 2}), alive), node_id{1});
    // only a dead one in the ISR
    EXPECT_EQ(elect_leader(assignment, to_node_ids({2}), alive), no_node);
    EXPECT_EQ(elect_leader({}, {}, alive), no_node);
}

TEST(broker_fencing, fencing_moves_leadership_and_shrinks_isrs) {
    auto image = three_brokers();
    auto records = plan_fence_broker(*image, node_id{1});
    ASSERT_FALSE(records.empty());
    ASSERT_TRUE(std::holds_alternative<protocol::fence_broker_record>(records.front()));
    EXPECT_EQ(std::get<protocol::fence_broker_record>(records.front()).epoch, 10);
    auto next = apply_all(image, records);
    EXPECT_TRUE(next->brokers.at(node_id{1}).fenced);
    const auto& ps = next->topic("t")->partitions;
    // p0 was led by 1: the next replica of the assignment in the ISR leads.
    EXPECT_EQ(ps[0].leader, node_id{2});
    EXPECT_EQ(ps[0].isr, to_node_ids({2, 3}));
    EXPECT_EQ(ps[0].leader_epoch, 1);
    // p1 and p2 keep their leaders, lose 1 from the ISR.
    EXPECT_EQ(ps[1].leader, node_id{2});
    EXPECT_EQ(ps[1].isr, to_node_ids({2, 3}));
    EXPECT_EQ(ps[1].leader_epoch, 0);
    EXPECT_EQ(ps[2].leader, node_id{3});
    EXPECT_EQ(ps[2].isr, to_node_ids({3, 2}));
    // p3's only replica: the ISR is never emptied, the partition has no leader.
    EXPECT_EQ(ps[3].leader, node_id{-1});
    EXPECT_EQ(ps[3].isr, to_node_ids({1}));
    // Fencing again writes nothing.
    EXPECT_TRUE(plan_fence_broker(*next, node_id{1}).empty());
}

TEST(broker_fencing, unfencing_gives_leaderless_partitions_their_leader_back) {
    auto image = three_brokers();
    auto fenced = apply_all(image, plan_fence_broker(*image, node_id{1}));
    auto records = plan_unfence_broker(*fenced, node_id{1});
    ASSERT_FALSE(records.empty());
    auto back = apply_all(fenced, records);
    EXPECT_FALSE(back->brokers.at(node_id{1}).fenced);
    const auto& ps = back->topic("t")->partitions;
    EXPECT_EQ(ps[3].leader, node_id{1});  // it is in that partition's ISR
    EXPECT_EQ(ps[0].leader, node_id{2});  // led elsewhere: no change (preferred election moves it)
    EXPECT_TRUE(plan_unfence_broker(*back, node_id{1}).empty());
}

TEST(broker_fencing, last_live_broker_of_an_isr_fenced_leaves_no_leader) {
    auto image = three_brokers();
    auto a = apply_all(image, plan_fence_broker(*image, node_id{2}));
    auto b = apply_all(a, plan_fence_broker(*a, node_id{3}));
    auto c = apply_all(b, plan_fence_broker(*b, node_id{1}));
    for (const auto& p : c->topic("t")->partitions) {
        EXPECT_EQ(p.leader, node_id{-1}) << "partition " << p.partition;
        EXPECT_EQ(p.isr.size(), 1u) << "partition " << p.partition;
    }
}

}  // namespace
}  // namespace samsa::metadata
