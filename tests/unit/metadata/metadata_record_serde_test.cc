#include "metadata/metadata_record_serde.h"

#include <gtest/gtest.h>

#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

using testing::test_uuid;

TEST(metadata_record_serde, topic_record_frame_has_kafkas_byte_layout) {
    auto id = test_uuid(0x10);
    bytes frame = encode_metadata_record(testing::topic_rec("foo", id));
    bytes expected = {0x01,  // frame version (AbstractApiMessageSerde.DEFAULT_FRAME_VERSION)
                      0x02,  // record type: TopicRecord's apiKey
                      0x00,  // record version 0
                      0x04, 'f', 'o', 'o'};  // compact string: length + 1, bytes
    expected.insert(expected.end(), id.data.begin(), id.data.end());
    expected.push_back(0x00);  // no tagged fields
    EXPECT_EQ(frame, expected);
}

TEST(metadata_record_serde, written_versions_match_metadata_version_3_6) {
    EXPECT_EQ(written_version(protocol::register_broker_record{}), 2);
    EXPECT_EQ(written_version(protocol::partition_record{}), 0);
    EXPECT_EQ(written_version(protocol::partition_change_record{}), 0);
    EXPECT_EQ(written_version(protocol::topic_record{}), 0);
    EXPECT_EQ(record_type(protocol::partition_record{}), 3);
    EXPECT_EQ(record_type(protocol::config_record{}), 4);
    EXPECT_EQ(record_type(protocol::remove_topic_record{}), 9);
}

template <typename Record>
void expect_round_trip(const Record& rec) {
    auto decoded = decode_metadata_record(encode_metadata_record(rec));
    ASSERT_TRUE(decoded) << decoded.err().message;
    ASSERT_TRUE(std::holds_alternative<Record>(*decoded));
    EXPECT_EQ(std::get<Record>(*decoded), rec);
}

TEST(metadata_record_serde, every_record_type_round_trips) {
    auto id = test_uuid(7);
    expect_round_trip(testing::broker_rec(3, 42, true));
    protocol::unregister_broker_record ur;
    ur.broker_id = node_id{3};
    ur.broker_epoch = 42;
    expect_round_trip(ur);
    expect_round_trip(testing::topic_rec("orders", id));
    expect_round_trip(testing::partition_rec(id, 5, {1, 2, 3}));
    expect_round_trip(
        testing::config_rec(config_resource_type::topic, "orders", "retention.ms", "1000"));
    expect_round_trip(
        testing::config_rec(config_resource_type::broker, "", "log.retention.ms", std::nullopt));
    protocol::partition_change_record pc;
    pc.topic_id = id;
    pc.partition_id = 1;
    pc.isr = to_node_ids({1});
    pc.leader = node_id{1};
    expect_round_trip(pc);
    protocol::fence_broker_record f;
    f.id = node_id{2};
    f.epoch = 9;
    expect_round_trip(f);
    protocol::unfence_broker_record u;
    u.id = node_id{2};
    u.epoch = 9;
    expect_round_trip(u);
    protocol::remove_topic_record rt;
    rt.topic_id = id;
    expect_round_trip(rt);
    protocol::feature_level_record fl;
    fl.name = "metadata.version";
    fl.feature_level = 14;
    expect_round_trip(fl);
    protocol::producer_ids_record pid;
    pid.broker_id = node_id{1};
    pid.broker_epoch = 5;
    pid.next_producer_id = 2000;
    expect_round_trip(pid);
    protocol::broker_registration_change_record brc;
    brc.broker_id = node_id{1};
    brc.broker_epoch = 5;
    brc.fenced = -1;
    expect_round_trip(brc);
    expect_round_trip(protocol::no_op_record{});
}

TEST(metadata_record_serde, reads_versions_kafka_writes_that_samsa_does_not) {
    // Kafka 3.7+ writes PartitionRecord v1 (directories) and v2 (ELR).
    auto rec = testing::partition_rec(test_uuid(1), 0, {1});
    rec.directories = {test_uuid(9)};
    for (int16_t v : {1, 2}) {
        auto decoded = decode_metadata_record(encode_metadata_record(rec, v));
        ASSERT_TRUE(decoded) << decoded.err().message;
        EXPECT_EQ(std::get<protocol::partition_record>(*decoded).directories, rec.directories);
    }
}

TEST(metadata_record_serde, refuses_what_it_cannot_read_whole) {
    bytes good = encode_metadata_record(testing::topic_rec("foo", test_uuid(1)));

    bytes frame2 = good;
    frame2[0] = 0x02;
    EXPECT_EQ(decode_metadata_record(frame2).code(), error_code::corrupt_message);

    bytes unknown_type = good;
    unknown_type[1] = 0x7f;
    EXPECT_EQ(decode_metadata_record(unknown_type).code(), error_code::corrupt_message);

    bytes future_version = good;
    future_version[2] = 0x05;
    EXPECT_EQ(decode_metadata_record(future_version).code(), error_code::corrupt_message);

    bytes trailing = good;
    trailing.push_back(0);
    EXPECT_EQ(decode_metadata_record(trailing).code(), error_code::corrupt_message);

    for (size_t n = 0; n < good.size(); ++n) {
        bytes cut(good.begin(), good.begin() + long(n));
        EXPECT_FALSE(decode_metadata_record(cut)) << "length " << n;
    }
}

}  // namespace
}  // namespace samsa::metadata
