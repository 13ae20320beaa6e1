// Partition reassignment on the controller: starting one (the merged replica
// list, adding and removing), finishing it in the AlterPartition that brings
// the last target replica into the ISR (with the leader moved off a removed
// replica and the leader epoch bumped), cancelling, the shortcuts, the
// errors, and ListPartitionReassignments.
#include "metadata/partition_reassignment.h"

#include <gtest/gtest.h>

#include <random>

#include "common/config/broker_config_def.h"
#include "metadata/isr_change.h"
#include "metadata/metadata_delta.h"
#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

using namespace testing;
using ids = std::vector<int32_t>;

const uuid topic_id = test_uuid(7);

// Brokers 1-4 (epochs 10-13); t-0 on [1,2,3], led by 1, ISR [1,2,3].
std::shared_ptr<const metadata_image> image() {
    return apply_all(std::make_shared<metadata_image>(),
                     {broker_rec(1, 10), broker_rec(2, 11), broker_rec(3, 12), broker_rec(4, 13),
                      topic_rec("t", topic_id), partition_rec(topic_id, 0, {1, 2, 3})});
}

struct reassignments {
    config::broker_config cfg = one_node_config();
    config::config_set broker{config::broker_config_def()};
    std::mt19937 rng;

    controller_plan<protocol::alter_partition_reassignments_response> plan(
        const metadata_image& img, std::optional<ids> replicas, std::string topic = "t",
        int32_t partition = 0) {
        protocol::alter_partition_reassignments_request r;
        auto& t = r.topics.emplace_back();
        t.name = std::move(topic);
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        if (replicas) {
            p.replicas = to_node_ids(*replicas);
        }
        return plan_alter_partition_reassignments(controller_state{img, cfg, broker, rng}, r);
    }
};

error_code first_error(const protocol::alter_partition_reassignments_response& r) {
    return static_cast<error_code>(r.responses.at(0).partitions.at(0).error_code);
}

const partition_registration& t0(const std::shared_ptr<const metadata_image>& img) {
    return img->topic("t")->partitions.at(0);
}

// The leader's AlterPartition for t-0 in the image's current epochs.
isr_change_plan alter_isr(const metadata_image& img, ids isr) {
    const auto& p = img.topic("t")->partitions.at(0);
    protocol::alter_partition_request r;
    r.broker_id = p.leader;
    r.broker_epoch = 9 + p.leader.value();
    auto& t = r.topics.emplace_back();
    t.topic_id = topic_id;
    auto& rp = t.partitions.emplace_back();
    rp.partition_index = 0;
    rp.leader_epoch = p.leader_epoch;
    rp.partition_epoch = p.partition_epoch;
    rp.new_isr = to_node_ids(isr);
    return plan_alter_partition(img, r, 2);
}

TEST(partition_reassignment,
     a_move_adds_the_new_replicas_first_and_finishes_once_they_are_in_sync) {
    reassignments ra;
    auto img = image();
    // [1,2,3] -> [2,3,4]: 4 is added, 1 (the leader) removed later.
    auto plan = ra.plan(*img, ids{2, 3, 4});
    ASSERT_EQ(first_error(plan.response), error_code::none);
    img = apply_all(img, plan.records);
    EXPECT_EQ(t0(img).replicas, to_node_ids({2, 3, 4, 1}));
    EXPECT_EQ(t0(img).adding_replicas, to_node_ids({4}));
    EXPECT_EQ(t0(img).removing_replicas, to_node_ids({1}));
    EXPECT_EQ(t0(img).leader, node_id{1});
    EXPECT_EQ(t0(img).isr, to_node_ids({1, 2, 3}));
    const int32_t epoch = t0(img).leader_epoch;
    // The leader takes 4 into the ISR: that change finishes the move.
    auto isr = alter_isr(*img, {1, 2, 3, 4});
    ASSERT_EQ(isr.records.size(), 1u);
    const auto& answer = isr.response.topics[0].partitions[0];
    EXPECT_EQ(answer.isr, to_node_ids({2, 3, 4}));
    EXPECT_EQ(answer.leader_id, node_id{2});
    img = apply_all(img, isr.records);
    EXPECT_EQ(t0(img).replicas, to_node_ids({2, 3, 4}));
    EXPECT_EQ(t0(img).isr, to_node_ids({2, 3, 4}));
    EXPECT_TRUE(t0(img).adding_replicas.empty());
    EXPECT_TRUE(t0(img).removing_replicas.empty());
    EXPECT_EQ(t0(img).leader, node_id{2});
    EXPECT_EQ(t0(img).leader_epoch, epoch + 1);
    EXPECT_EQ(answer.partition_epoch, t0(img).partition_epoch);
}

TEST(partition_reassignment, removing_a_follower_bumps_the_leader_epoch_of_the_same_leader) {
    reassignments ra;
    auto img = image();
    const int32_t epoch = t0(img).leader_epoch;
    // Every target replica is in sync already: done at once.
    img = apply_all(img, ra.plan(*img, ids{1, 2}).records);
    EXPECT_EQ(t0(img).replicas, to_node_ids({1, 2}));
    EXPECT_EQ(t0(img).isr, to_node_ids({1, 2}));
    EXPECT_EQ(t0(img).leader, node_id{1});
    EXPECT_EQ(t0(img).leader_epoch, epoch + 1);
}

TEST(partition_reassignment, a_reordering_moves_no_data_and_keeps_the_leader_and_its_epoch) {
    reassignments ra;
    auto img = image();
    const int32_t epoch = t0(img).leader_epoch;
    img = apply_all(img, ra.plan(*img, ids{3, 2, 1}).records);
    EXPECT_EQ(t0(img).replicas, to_node_ids({3, 2, 1}));
    EXPECT_EQ(t0(img).leader, node_id{1});  // the next preferred election makes 3 the leader
    EXPECT_EQ(t0(img).leader_epoch, epoch);
    // The same assignment again changes nothing.
    EXPECT_TRUE(ra.plan(*img, ids{3, 2, 1}).records.empty());
}

TEST(partition_reassignment, a_cancel_goes_back_to_the_replicas_before_it) {
    reassignments ra;
    auto img = image();
    img = apply_all(img, ra.plan(*img, ids{2, 3, 4}).records);
    auto cancel = ra.plan(*img, std::nullopt);
    ASSERT_EQ(first_error(cancel.response), error_code::none);
    img = apply_all(img, cancel.records);
    EXPECT_EQ(t0(img).replicas, to_node_ids({2, 3, 1}));
    EXPECT_TRUE(t0(img).adding_replicas.empty());
    EXPECT_TRUE(t0(img).removing_replicas.empty());
    EXPECT_EQ(t0(img).isr, to_node_ids({1, 2, 3}));
    EXPECT_EQ(t0(img).leader, node_id{1});
    // Nothing left to cancel.
    EXPECT_EQ(first_error(ra.plan(*img, std::nullopt).response),
              error_code::no_reassignment_in_progress);
}

TEST(partition_reassignment, a_new_target_while_one_runs_starts_from_the_current_replicas) {
    reassignments ra;
    auto img = image();
    img = apply_all(img, ra.plan(*img, ids{2, 3, 4}).records);
    // 4 is no longer wanted: it is removed with 3.
    img = apply_all(img, ra.plan(*img, ids{1, 2}).records);
    EXPECT_EQ(t0(img).replicas, to_node_ids({1, 2}));
    EXPECT_TRUE(t0(img).adding_replicas.empty());
}

TEST(partition_reassignment, invalid_targets_are_refused_per_partition) {
    reassignments ra;
    auto img = image();
    for (const ids& bad : {ids{}, ids{1, 1, 2}, ids{1, 2, 9}}) {
        auto plan = ra.plan(*img, bad);
        EXPECT_EQ(first_error(plan.response), error_code::invalid_replica_assignment);
        EXPECT_TRUE(plan.records.empty());
    }
    EXPECT_EQ(first_error(ra.plan(*img, ids{1}, "nope").response),
              error_code::unknown_topic_or_partition);
    EXPECT_EQ(first_error(ra.plan(*img, ids{1}, "t", 5).response),
              error_code::unknown_topic_or_partition);
}

TEST(partition_reassignment, an_isr_change_short_of_the_target_does_not_finish_it) {
    reassignments ra;
    auto img = image();
    img = apply_all(img, ra.plan(*img, ids{1, 4}).records);
    // Shrinking the ISR to [1,2] leaves 4 to wait for.
    auto isr = alter_isr(*img, {1, 2});
    img = apply_all(img, isr.records);
    EXPECT_EQ(t0(img).replicas, to_node_ids({1, 4, 2, 3}));
    EXPECT_EQ(t0(img).adding_replicas, to_node_ids({4}));
}

TEST(partition_reassignment, the_list_names_the_partitions_being_moved) {
    reassignments ra;
    auto img = image();
    protocol::list_partition_reassignments_request all;
    EXPECT_TRUE(list_partition_reassignments(*img, all).topics.empty());
    img = apply_all(img, ra.plan(*img, ids{2, 3, 4}).records);
    auto listed = list_partition_reassignments(*img, all);
    ASSERT_EQ(listed.topics.size(), 1u);
    ASSERT_EQ(listed.topics[0].partitions.size(), 1u);
    const auto& p = listed.topics[0].partitions[0];
    EXPECT_EQ(p.replicas, to_node_ids({2, 3, 4, 1}));
    EXPECT_EQ(p.adding_replicas, to_node_ids({4}));
    EXPECT_EQ(p.removing_replicas, to_node_ids({1}));
    protocol::list_partition_reassignments_request other;
    other.topics.emplace().emplace_back().name = "t";
    other.topics->back().partition_indexes = {1};
    EXPECT_TRUE(list_partition_reassignments(*img, other).topics.empty());
}

}  // namespace
}  // namespace samsa::metadata
