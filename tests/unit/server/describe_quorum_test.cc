// DescribeQuorum (key 55) against the in-process broker, on both listeners:
// the metadata partition (__cluster_metadata-0) led by this node with itself
// as the only voter, and UNKNOWN_TOPIC_OR_PARTITION at the partition level
// for any other partition, as KafkaRaftClient answers.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_quorum_request;
using protocol::describe_quorum_response;

class describe_quorum_test : public broker_test {
  protected:
    describe_quorum_response describe(const std::string& topic, int32_t partition,
                                      listener_kind l = listener_kind::client) {
        describe_quorum_request req;
        auto& t = req.topics.emplace_back();
        t.topic_name = topic;
        t.partitions.emplace_back().partition_index = partition;
        return broker().call<describe_quorum_response>(req, 1, l);
    }
};

TEST_F(describe_quorum_test, metadata_partition_is_led_by_this_node) {
    for (auto l : {listener_kind::client, listener_kind::controller}) {
        auto resp = describe("__cluster_metadata", 0, l);
        EXPECT_ERROR(resp.error_code, error_code::none);
        ASSERT_EQ(resp.topics.size(), 1u);
        ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
        const auto& p = resp.topics[0].partitions[0];
        EXPECT_ERROR(p.error_code, error_code::none);
        EXPECT_EQ(p.leader_id.value(), broker().node_id());
        EXPECT_GE(p.leader_epoch, 1);
        EXPECT_GT(p.high_watermark, 0);
        ASSERT_EQ(p.current_voters.size(), 1u);
        EXPECT_EQ(p.current_voters[0].replica_id.value(), broker().node_id());
        EXPECT_TRUE(p.observers.empty());
    }
}

TEST_F(describe_quorum_test, other_topic_is_unknown_topic_or_partition) {
    auto resp = describe("not-the-metadata-topic", 0);
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_ERROR(resp.topics[0].partitions[0].error_code, error_code::unknown_topic_or_partition);
}

TEST_F(describe_quorum_test, other_partition_is_unknown_topic_or_partition) {
    auto resp = describe("__cluster_metadata", 1);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_ERROR(resp.topics[0].partitions[0].error_code, error_code::unknown_topic_or_partition);
}

}  // namespace
}  // namespace samsa::server::test
