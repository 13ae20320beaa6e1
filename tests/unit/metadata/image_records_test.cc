// A metadata snapshot's records rebuild the image they were taken from.
#include "metadata/image_records.h"

#include <gtest/gtest.h>

#include "metadata/metadata_delta.h"
#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

using namespace testing;

std::shared_ptr<const metadata_image> replay(const std::vector<metadata_record>& records) {
    metadata_delta d(std::make_shared<metadata_image>());
    for (const auto& r : records) {
        EXPECT_TRUE(d.apply(r)) << record_type(r);
    }
    return d.build(41);
}

TEST(image_records, snapshot_records_rebuild_the_image) {
    const uuid a = test_uuid(1);
    const uuid b = test_uuid(2);
    protocol::feature_level_record f;
    f.name = metadata_version_feature;
    f.feature_level = written_metadata_version;
    protocol::partition_change_record change;
    change.topic_id = a;
    change.partition_id = 1;
    change.isr = to_node_ids({2});
    change.leader = node_id{2};
    protocol::producer_ids_record pid;
    pid.broker_id = node_id{1};
    pid.broker_epoch = 10;
    pid.next_producer_id = 3000;
    auto image =
        replay({metadata_record(f), broker_rec(1, 10), broker_rec(2, 11, true),
                topic_rec("alpha", a), partition_rec(a, 0, {1, 2}), partition_rec(a, 1, {1, 2}),
                change, topic_rec("beta", b), partition_rec(b, 0, {2}),
                config_rec(config_resource_type::topic, "alpha", "retention.ms", "1000"),
                config_rec(config_resource_type::broker, "", "log.retention.ms", "5"),
                config_rec(config_resource_type::broker, "1", "num.io.threads", "4"), pid});

    auto again = replay(image_to_records(*image));
    EXPECT_EQ(again->features, image->features);
    ASSERT_EQ(again->brokers.size(), 2u);
    for (const auto& [id, reg] : image->brokers) {
        const auto& r = again->brokers.at(id);
        EXPECT_EQ(r.epoch, reg.epoch);
        EXPECT_EQ(r.incarnation_id, reg.incarnation_id);
        EXPECT_EQ(r.fenced, reg.fenced);
        EXPECT_EQ(r.endpoints.size(), reg.endpoints.size());
    }
    ASSERT_EQ(again->topics_by_name.size(), 2u);
    for (const auto& [name, t] : image->topics_by_name) {
        const auto* u = again->topic(name);
        ASSERT_NE(u, nullptr);
        EXPECT_EQ(u->id, t->id);
        EXPECT_EQ(u->partitions, t->partitions);  // leader epochs and ISRs as they were
    }
    EXPECT_EQ(again->topic("alpha")->partitions[1].leader, node_id{2});
    EXPECT_EQ(again->topic("alpha")->partitions[1].leader_epoch, 1);
    EXPECT_EQ(again->topic_configs, image->topic_configs);
    EXPECT_EQ(again->broker_configs, image->broker_configs);
    EXPECT_EQ(again->producer_ids.next_producer_id, 3000);
}

}  // namespace
}  // namespace samsa::metadata
