#include "metadata/metadata_delta.h"

#include <gtest/gtest.h>

#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

using testing::broker_rec;
using testing::config_rec;
using testing::partition_rec;
using testing::test_uuid;
using testing::topic_rec;

std::shared_ptr<const metadata_image> build(std::shared_ptr<const metadata_image> base,
                                            const std::vector<metadata_record>& records,
                                            int64_t offset = 0) {
    metadata_delta d(std::move(base));
    for (const auto& r : records) {
        auto s = d.apply(r);
        EXPECT_TRUE(s) << s.err().message;
    }
    return d.build(offset);
}

std::shared_ptr<const metadata_image> empty() {
    return std::make_shared<const metadata_image>();
}

TEST(metadata_delta, topic_and_partitions_make_a_topic_image) {
    auto id = test_uuid(1);
    auto img = build(empty(),
                     {broker_rec(1, 0), topic_rec("orders", id), partition_rec(id, 1, {1}),
                      partition_rec(id, 0, {1})},
                     7);
    EXPECT_EQ(img->offset, 7);
    ASSERT_TRUE(img->topic("orders"));
    EXPECT_EQ(img->topic("orders"), img->topic(id));
    const auto& t = *img->topic(id);
    ASSERT_EQ(t.partitions.size(), 2u);
    EXPECT_EQ(t.partitions[0].partition, 0);
    EXPECT_EQ(t.partitions[1].partition, 1);
    EXPECT_EQ(t.partitions[1].leader, node_id{1});
    EXPECT_EQ(t.partitions[1].isr, to_node_ids({1}));
    ASSERT_TRUE(img->brokers.count(node_id{1}));
    EXPECT_EQ(img->brokers.at(node_id{1}).epoch, 0);
    EXPECT_EQ(img->brokers.at(node_id{1}).endpoints.at(0).port, 9091);
}

TEST(metadata_delta, untouched_topics_are_shared_touched_ones_copied) {
    auto a = test_uuid(1);
    auto b = test_uuid(2);
    auto first = build(empty(), {topic_rec("a", a), partition_rec(a, 0, {1}), topic_rec("b", b),
                                 partition_rec(b, 0, {1})});
    auto second = build(first, {partition_rec(b, 1, {1})});
    EXPECT_EQ(first->topic(a), second->topic(a));
    EXPECT_NE(first->topic(b), second->topic(b));
    EXPECT_EQ(first->topic(b)->partitions.size(), 1u);  // the old image never changes
    EXPECT_EQ(second->topic(b)->partitions.size(), 2u);
    EXPECT_EQ(second->topic("b"), second->topic(b));
}

TEST(metadata_delta, partition_change_merges_fields_and_bumps_epochs) {
    auto id = test_uuid(1);
    auto img = build(empty(), {topic_rec("t", id), partition_rec(id, 0, {1, 2, 3})});
    protocol::partition_change_record isr_only;
    isr_only.topic_id = id;
    isr_only.partition_id = 0;
    isr_only.isr = to_node_ids({1, 2});
    img = build(img, {isr_only});
    auto p = img->topic(id)->partitions[0];
    EXPECT_EQ(p.isr, to_node_ids({1, 2}));
    EXPECT_EQ(p.leader, node_id{1});
    EXPECT_EQ(p.leader_epoch, 0);
    EXPECT_EQ(p.partition_epoch, 1);

    protocol::partition_change_record new_leader;
    new_leader.topic_id = id;
    new_leader.partition_id = 0;
    new_leader.leader = node_id{2};
    img = build(img, {new_leader});
    p = img->topic(id)->partitions[0];
    EXPECT_EQ(p.leader, node_id{2});
    EXPECT_EQ(p.leader_epoch, 1);
    EXPECT_EQ(p.partition_epoch, 2);
    EXPECT_EQ(p.replicas, to_node_ids({1, 2, 3}));
}

TEST(metadata_delta, remove_topic_drops_it_and_its_configs) {
    auto id = test_uuid(1);
    auto img = build(empty(), {topic_rec("t", id),
                               config_rec(config_resource_type::topic, "t", "retention.ms", "5"),
                               partition_rec(id, 0, {1})});
    EXPECT_EQ(img->topic_configs.at("t").at("retention.ms"), "5");
    protocol::remove_topic_record rm;
    rm.topic_id = id;
    img = build(img, {rm});
    EXPECT_FALSE(img->topic("t"));
    EXPECT_FALSE(img->topic(id));
    EXPECT_FALSE(img->topic_configs.count("t"));
    // The name is free again, with a new id.
    img = build(img, {topic_rec("t", test_uuid(2)), partition_rec(test_uuid(2), 0, {1})});
    EXPECT_EQ(img->topic("t")->id, test_uuid(2));
}

TEST(metadata_delta, config_records_set_and_null_deletes) {
    auto img = build(
        empty(), {config_rec(config_resource_type::broker, "", "log.retention.ms", "1"),
                  config_rec(config_resource_type::broker, "1", "log.retention.ms", "2"),
                  config_rec(config_resource_type::broker, "1", "log.retention.ms", std::nullopt)});
    EXPECT_EQ(img->broker_configs.at("").at("log.retention.ms"), "1");
    EXPECT_FALSE(img->broker_configs.count("1"));
}

TEST(metadata_delta, features_producer_ids_and_fencing) {
    protocol::feature_level_record mv;
    mv.name = "metadata.version";
    mv.feature_level = 14;
    protocol::producer_ids_record pids;
    pids.broker_id = node_id{1};
    pids.broker_epoch = 0;
    pids.next_producer_id = 1000;
    protocol::unfence_broker_record unfence;
    unfence.id = node_id{1};
    unfence.epoch = 3;
    auto img = build(empty(), {mv, broker_rec(1, 3, true), unfence, pids});
    EXPECT_EQ(img->features.at("metadata.version"), 14);
    EXPECT_EQ(img->producer_ids.next_producer_id, 1000);
    EXPECT_FALSE(img->brokers.at(node_id{1}).fenced);

    mv.feature_level = 0;
    protocol::fence_broker_record fence;
    fence.id = node_id{1};
    fence.epoch = 3;
    img = build(img, {mv, fence});
    EXPECT_FALSE(img->features.count("metadata.version"));
    EXPECT_TRUE(img->brokers.at(node_id{1}).fenced);
}

TEST(metadata_delta, records_that_contradict_the_image_are_errors) {
    auto id = test_uuid(1);
    auto img = build(empty(), {topic_rec("t", id), partition_rec(id, 0, {1}), broker_rec(1, 5)});
    auto fails = [&](const metadata_record& r) {
        metadata_delta d(img);
        return !d.apply(r);
    };
    EXPECT_TRUE(fails(topic_rec("t", test_uuid(2))));         // name taken
    EXPECT_TRUE(fails(topic_rec("u", id)));                   // id taken
    EXPECT_TRUE(fails(partition_rec(test_uuid(3), 0, {1})));  // unknown topic
    EXPECT_TRUE(fails(config_rec(config_resource_type::topic, "nope", "retention.ms", "1")));
    protocol::remove_topic_record rm;
    rm.topic_id = test_uuid(3);
    EXPECT_TRUE(fails(rm));
    protocol::partition_change_record pc;
    pc.topic_id = id;
    pc.partition_id = 4;
    EXPECT_TRUE(fails(pc));
    protocol::unfence_broker_record stale;
    stale.id = node_id{1};
    stale.epoch = 4;
    EXPECT_TRUE(fails(stale));
    protocol::producer_ids_record back;
    back.next_producer_id = -1;
    EXPECT_TRUE(fails(back));
}

}  // namespace
}  // namespace samsa::metadata
