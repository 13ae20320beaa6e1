// The metadata loader and the snapshot generator without a quorum or sockets:
// committed batches become one image per run of commits, a batch that does not
// decode is left out whole, and a snapshot of an image loads back into an
// equal image.
#include "metadata/metadata_loader.h"

#include <gtest/gtest.h>

#include "metadata/snapshot_generator.h"
#include "metadata_test_util.h"
#include "raft/raft_batch_codec.h"

namespace samsa::metadata {
namespace {

using namespace testing;

std::shared_ptr<const metadata_image> base_image() {
    auto img = std::make_shared<metadata_image>();
    img->cluster_id = "loader-test";
    return img;
}

raft::raft_batch batch(int64_t base_offset, int32_t epoch,
                       const std::vector<metadata_record>& records) {
    raft::raft_batch b;
    b.base_offset = raft::raft_offset{base_offset};
    b.epoch = raft::raft_epoch{epoch};
    for (const auto& r : records) {
        b.records.push_back(encode_metadata_record(r));
    }
    return b;
}

TEST(metadata_loader, batches_committed_together_make_one_image) {
    metadata_loader loader(base_image());
    EXPECT_EQ(loader.end_of_commits(), nullptr);  // nothing committed yet

    const uuid a = test_uuid(1);
    loader.handle_commit(batch(0, 1, {broker_rec(1, 10)}));
    loader.handle_commit(batch(1, 1, {topic_rec("alpha", a), partition_rec(a, 0, {1})}));
    auto image = loader.end_of_commits();
    ASSERT_NE(image, nullptr);
    EXPECT_EQ(image->offset, 2);
    EXPECT_EQ(image->cluster_id, "loader-test");
    EXPECT_EQ(image->brokers.size(), 1u);
    ASSERT_NE(image->topic("alpha"), nullptr);
    EXPECT_EQ(loader.end_offset(), 3);
    EXPECT_EQ(loader.epoch().value(), 1);
    EXPECT_EQ(loader.image(), image);
    EXPECT_GT(loader.bytes_since_snapshot(), 0);
    EXPECT_EQ(loader.end_of_commits(), nullptr);  // published once
}

TEST(metadata_loader, control_batches_carry_no_metadata) {
    metadata_loader loader(base_image());
    raft::raft_batch control;
    control.control = raft::control_record_type::leader_change;
    control.records.push_back(bytes{0, 0});
    loader.handle_commit(control);
    EXPECT_EQ(loader.end_of_commits(), nullptr);
    EXPECT_EQ(loader.bytes_since_snapshot(), 0);
}

TEST(metadata_loader, a_batch_that_does_not_decode_is_left_out_whole) {
    metadata_loader loader(base_image());
    auto b = batch(0, 1, {broker_rec(1, 10), broker_rec(2, 11)});
    b.records[1] = bytes{0xff, 0xff, 0xff};
    loader.handle_commit(b);
    loader.handle_commit(batch(2, 1, {broker_rec(3, 12)}));
    auto image = loader.end_of_commits();
    ASSERT_NE(image, nullptr);
    EXPECT_EQ(image->brokers.count(node_id{1}), 0u);  // the good record of the bad batch too
    EXPECT_EQ(image->brokers.count(node_id{3}), 1u);
}

TEST(metadata_loader, a_snapshot_of_an_image_loads_back_into_an_equal_image) {
    metadata_loader leader(base_image());
    const uuid a = test_uuid(1);
    leader.handle_commit(
        batch(0, 4,
              {broker_rec(1, 10), topic_rec("alpha", a), partition_rec(a, 0, {1}),
               config_rec(config_resource_type::topic, "alpha", "retention.ms", "1000")}));
    auto image = leader.end_of_commits();
    ASSERT_NE(image, nullptr);

    auto data = encode_snapshot(*image, leader.epoch(), 1234, 5678);
    ASSERT_TRUE(data) << data.err().message;
    // Header, one batch of records, footer; offsets count from 0 in the snapshot.
    auto batches = raft::decode_record_batches(*data);
    ASSERT_TRUE(batches);
    ASSERT_EQ(batches->size(), 3u);
    EXPECT_EQ((*batches)[0].control, raft::control_record_type::snapshot_header);
    EXPECT_EQ((*batches)[1].base_offset.value(), 1);
    EXPECT_EQ((*batches)[2].control, raft::control_record_type::snapshot_footer);
    for (const auto& b : *batches) {
        EXPECT_EQ(b.epoch.value(), 4);
    }

    metadata_loader follower(base_image());
    follower.handle_commit(batch(0, 1, {broker_rec(9, 1)}));  // replaced by the snapshot
    raft::raft_snapshot snap{{raft::raft_offset{leader.end_offset()}, leader.epoch()},
                             std::make_shared<const bytes>(std::move(*data))};
    auto loaded = follower.load_snapshot(snap);
    ASSERT_TRUE(loaded) << loaded.err().message;
    EXPECT_EQ((*loaded)->offset, image->offset);
    EXPECT_EQ((*loaded)->brokers.size(), 1u);
    EXPECT_EQ((*loaded)->brokers.count(node_id{9}), 0u);
    ASSERT_NE((*loaded)->topic("alpha"), nullptr);
    EXPECT_EQ((*loaded)->topic("alpha")->partitions, image->topic("alpha")->partitions);
    EXPECT_EQ((*loaded)->topic_configs, image->topic_configs);
    EXPECT_EQ(follower.end_of_commits(), nullptr);  // the pending batch went with it
}

TEST(metadata_loader, a_snapshot_that_is_not_record_batches_is_refused) {
    metadata_loader loader(base_image());
    raft::raft_snapshot snap{{raft::raft_offset{5}, raft::raft_epoch{1}},
                             std::make_shared<const bytes>(bytes(40, 0x7f))};
    EXPECT_FALSE(loader.load_snapshot(snap));
    EXPECT_EQ(loader.image()->offset, base_image()->offset);
}

TEST(snapshot_generator, due_by_bytes_or_by_time_with_records_committed) {
    using namespace std::chrono_literals;
    const auto t0 = snapshot_generator::clock::time_point{} + 1h;
    snapshot_generator gen(1000, 60s, t0);
    EXPECT_FALSE(gen.due(999, t0));
    EXPECT_TRUE(gen.due(1000, t0));
    EXPECT_FALSE(gen.due(0, t0 + 61s));  // nothing new to snapshot
    EXPECT_TRUE(gen.due(1, t0 + 60s));
    gen.taken(t0 + 60s);
    EXPECT_FALSE(gen.due(1, t0 + 119s));

    snapshot_generator by_bytes_only(1000, 0ms, t0);
    EXPECT_FALSE(by_bytes_only.due(999, t0 + 24h));
}

}  // namespace
}  // namespace samsa::metadata
