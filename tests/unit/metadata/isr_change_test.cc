// AlterPartition on the controller: who may change an ISR, against which
// epochs, to what; and the record and answer an accepted change gives.
#include "metadata/isr_change.h"

#include <gtest/gtest.h>

#include "metadata/broker_fencing.h"
#include "metadata/metadata_delta.h"
#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

using namespace testing;

const uuid topic_id = test_uuid(5);

// Brokers 1-3 (epochs 10-12); t-0 with replicas [1,2,3], ISR [1,2] (3 lagged),
// led by 1 in leader epoch 0, partition epoch 1.
std::shared_ptr<const metadata_image> image() {
    protocol::partition_change_record shrink;
    shrink.topic_id = topic_id;
    shrink.partition_id = 0;
    shrink.isr = to_node_ids({1, 2});
    return apply_all(std::make_shared<metadata_image>(),
                     {broker_rec(1, 10), broker_rec(2, 11), broker_rec(3, 12),
                      topic_rec("t", topic_id), partition_rec(topic_id, 0, {1, 2, 3}), shrink});
}

protocol::alter_partition_request request(int32_t broker, std::vector<int32_t> isr,
                                          int32_t leader_epoch = 0, int32_t partition_epoch = 1) {
    protocol::alter_partition_request r;
    r.broker_id = node_id{broker};
    r.broker_epoch = 9 + broker;
    auto& t = r.topics.emplace_back();
    t.topic_id = topic_id;
    auto& p = t.partitions.emplace_back();
    p.partition_index = 0;
    p.leader_epoch = leader_epoch;
    p.partition_epoch = partition_epoch;
    p.new_isr = to_node_ids(isr);
    return r;
}

error_code partition_error(const isr_change_plan& plan) {
    return static_cast<error_code>(plan.response.topics.at(0).partitions.at(0).error_code);
}

TEST(isr_change, the_leader_expands_its_isr) {
    auto img = image();
    auto plan = plan_alter_partition(*img, request(1, {1, 2, 3}), 2);
    EXPECT_EQ(partition_error(plan), error_code::none);
    ASSERT_EQ(plan.records.size(), 1u);
    const auto& p = plan.response.topics[0].partitions[0];
    EXPECT_EQ(p.isr, to_node_ids({1, 2, 3}));
    EXPECT_EQ(p.partition_epoch, 2);  // as the image will have it
    auto next = apply_all(img, plan.records);
    EXPECT_EQ(next->topic("t")->partitions[0].isr, to_node_ids({1, 2, 3}));
    EXPECT_EQ(next->topic("t")->partitions[0].partition_epoch, 2);
    EXPECT_EQ(next->topic("t")->partitions[0].leader_epoch, 0);  // the leader is unchanged
}

TEST(isr_change, an_unchanged_isr_writes_nothing) {
    auto plan = plan_alter_partition(*image(), request(1, {1, 2}), 2);
    EXPECT_EQ(partition_error(plan), error_code::none);
    EXPECT_TRUE(plan.records.empty());
}

TEST(isr_change, only_the_current_leader_in_its_epochs_may_change_it) {
    auto img = image();
    EXPECT_EQ(partition_error(plan_alter_partition(*img, request(2, {1, 2, 3}), 2)),
              error_code::not_leader_or_follower);
    // Older epochs: the leader is behind. Newer ones: this controller is
    // (another has moved on), NOT_CONTROLLER, as Kafka answers.
    EXPECT_EQ(partition_error(plan_alter_partition(*img, request(1, {1, 2, 3}, -1), 2)),
              error_code::fenced_leader_epoch);
    EXPECT_EQ(partition_error(plan_alter_partition(*img, request(1, {1, 2, 3}, 5), 2)),
              error_code::not_controller);
    EXPECT_EQ(partition_error(plan_alter_partition(*img, request(1, {1, 2, 3}, 0, 0), 2)),
              error_code::invalid_update_version);
    EXPECT_EQ(partition_error(plan_alter_partition(*img, request(1, {1, 2, 3}, 0, 2), 2)),
              error_code::not_controller);
    auto stale = request(1, {1, 2, 3});
    stale.broker_epoch = 3;
    EXPECT_EQ(plan_alter_partition(*img, stale, 2).response.error_code,
              to_wire(error_code::stale_broker_epoch));
    auto unknown = request(1, {1, 2, 3});
    unknown.topics[0].topic_id = test_uuid(77);
    EXPECT_EQ(partition_error(plan_alter_partition(*img, unknown, 2)),
              error_code::unknown_topic_id);
}

TEST(isr_change, members_must_be_replicas_and_additions_alive) {
    auto img = image();
    EXPECT_EQ(partition_error(plan_alter_partition(*img, request(1, {1, 2, 4}), 2)),
              error_code::invalid_request);
    EXPECT_EQ(partition_error(plan_alter_partition(*img, request(1, {2}), 2)),
              error_code::invalid_request);  // without the leader
    // Broker 3 fenced: it cannot be added back.
    auto fenced = apply_all(img, plan_fence_broker(*img, node_id{3}));
    EXPECT_EQ(partition_error(plan_alter_partition(*fenced, request(1, {1, 2, 3}), 2)),
              error_code::ineligible_replica);
    // Shrinking is always allowed.
    auto shrink = plan_alter_partition(*img, request(1, {1}), 2);
    EXPECT_EQ(partition_error(shrink), error_code::none);
    EXPECT_EQ(shrink.records.size(), 1u);
}

}  // namespace
}  // namespace samsa::metadata
