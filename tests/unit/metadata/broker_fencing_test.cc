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
    auto alive = [](int32_t id) { return id != 2; };
    EXPECT_EQ(elect_leader({2, 3, 1}, {1, 2, 3}, alive), 3);  // 2 is down: next in order
    EXPECT_EQ(elect_leader({2, 3, 1}, {1, 2}, alive), 1);     // 3 is out of the ISR
    EXPECT_EQ(elect_leader({2, 3, 1}, {2}, alive), -1);       // only a dead one in the ISR
    EXPECT_EQ(elect_leader({}, {}, alive), -1);
}

TEST(broker_fencing, fencing_moves_leadership_and_shrinks_isrs) {
    auto image = three_brokers();
    auto records = plan_fence_broker(*image, 1);
    ASSERT_FALSE(records.empty());
    ASSERT_TRUE(std::holds_alternative<protocol::fence_broker_record>(records.front()));
    EXPECT_EQ(std::get<protocol::fence_broker_record>(records.front()).epoch, 10);
    auto next = apply_all(image, records);
    EXPECT_TRUE(next->brokers.at(1).fenced);
    const auto& ps = next->topic("t")->partitions;
    // p0 was led by 1: the next replica of the assignment in the ISR leads.
    EXPECT_EQ(ps[0].leader, 2);
    EXPECT_EQ(ps[0].isr, (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(ps[0].leader_epoch, 1);
    // p1 and p2 keep their leaders, lose 1 from the ISR.
    EXPECT_EQ(ps[1].leader, 2);
    EXPECT_EQ(ps[1].isr, (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(ps[1].leader_epoch, 0);
    EXPECT_EQ(ps[2].leader, 3);
    EXPECT_EQ(ps[2].isr, (std::vector<int32_t>{3, 2}));
    // p3's only replica: the ISR is never emptied, the partition has no leader.
    EXPECT_EQ(ps[3].leader, -1);
    EXPECT_EQ(ps[3].isr, (std::vector<int32_t>{1}));
    // Fencing again writes nothing.
    EXPECT_TRUE(plan_fence_broker(*next, 1).empty());
}

TEST(broker_fencing, unfencing_gives_leaderless_partitions_their_leader_back) {
    auto image = three_brokers();
    auto fenced = apply_all(image, plan_fence_broker(*image, 1));
    auto records = plan_unfence_broker(*fenced, 1);
    ASSERT_FALSE(records.empty());
    auto back = apply_all(fenced, records);
    EXPECT_FALSE(back->brokers.at(1).fenced);
    const auto& ps = back->topic("t")->partitions;
    EXPECT_EQ(ps[3].leader, 1);  // it is in that partition's ISR
    EXPECT_EQ(ps[0].leader, 2);  // led elsewhere: no change (preferred election moves it)
    EXPECT_TRUE(plan_unfence_broker(*back, 1).empty());
}

TEST(broker_fencing, last_live_broker_of_an_isr_fenced_leaves_no_leader) {
    auto image = three_brokers();
    auto a = apply_all(image, plan_fence_broker(*image, 2));
    auto b = apply_all(a, plan_fence_broker(*a, 3));
    auto c = apply_all(b, plan_fence_broker(*b, 1));
    for (const auto& p : c->topic("t")->partitions) {
        EXPECT_EQ(p.leader, -1) << "partition " << p.partition;
        EXPECT_EQ(p.isr.size(), 1u) << "partition " << p.partition;
    }
}

}  // namespace
}  // namespace samsa::metadata
