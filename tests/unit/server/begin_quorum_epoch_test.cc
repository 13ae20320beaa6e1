// BeginQuorumEpoch (key 53, KIP-595) on the controller listener: the requests
// the one-node quorum must refuse, answered as Kafka's KafkaRaftClient answers
// them: INCONSISTENT_CLUSTER_ID (top level) for another cluster's id,
// FENCED_LEADER_EPOCH (partition level, naming the current leader) for an
// epoch below the current one, INVALID_REQUEST (top level) for a partition
// other than __cluster_metadata-0. A BeginQuorumEpoch the quorum accepted
// would make the broker follow another leader, so only requests that must be
// refused are sent, and after each test the broker still leads the quorum in
// the epoch it led before.
#include <gtest/gtest.h>

#include "protocol/generated/begin_quorum_epoch_request.h"
#include "protocol/generated/begin_quorum_epoch_response.h"
#include "quorum_test_support.h"

namespace samsa::server::test {
namespace {

using protocol::begin_quorum_epoch_request;
using protocol::begin_quorum_epoch_response;

// A node id that is not a voter of the one-node quorum.
constexpr int32_t k_other_node = 2;

class begin_quorum_epoch_test : public quorum_test {
  protected:
    // `leader` announcing itself the leader of `epoch`.
    begin_quorum_epoch_request begin(int32_t leader, int32_t epoch,
                                     const std::string& topic = "__cluster_metadata",
                                     int32_t partition = 0) {
        begin_quorum_epoch_request req;
        req.cluster_id = broker().cluster_id();
        auto& t = req.topics.emplace_back();
        t.topic_name = topic;
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        p.leader_id = node_id{leader};
        p.leader_epoch = epoch;
        return req;
    }

    begin_quorum_epoch_response send(const begin_quorum_epoch_request& req, int16_t version = 0) {
        return broker().call<begin_quorum_epoch_response>(req, version, listener_kind::controller);
    }

    static const begin_quorum_epoch_response::topic_data::partition_data* only_partition(
        const begin_quorum_epoch_response& resp) {
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "expected one topic of one partition, got " << resp.topics.size()
                          << " topics";
            return nullptr;
        }
        return &resp.topics[0].partitions[0];
    }
};

TEST_F(begin_quorum_epoch_test, other_cluster_id_is_inconsistent_cluster_id) {
    auto req = begin(k_other_node, _epoch - 1);
    req.cluster_id = "not-" + broker().cluster_id();
    for (int16_t v = 0; v <= begin_quorum_epoch_request::max_version; ++v) {
        auto resp = send(req, v);
        EXPECT_ERROR(resp.error_code, error_code::inconsistent_cluster_id) << "v" << v;
        EXPECT_TRUE(resp.topics.empty()) << "v" << v;
    }
}

// Kafka (validateVoterOnlyRequest) checks the epoch first: an older one is
// FENCED_LEADER_EPOCH, even from a node that is not a voter, and told who
// leads in which epoch.
TEST_F(begin_quorum_epoch_test, epoch_below_current_is_fenced_leader_epoch) {
    for (int16_t v = 0; v <= begin_quorum_epoch_request::max_version; ++v) {
        auto resp = send(begin(k_other_node, _epoch - 1), v);
        EXPECT_ERROR(resp.error_code, error_code::none) << "v" << v;
        const auto* p = only_partition(resp);
        ASSERT_NE(p, nullptr);
        EXPECT_ERROR(p->error_code, error_code::fenced_leader_epoch) << "v" << v;
        EXPECT_EQ(p->leader_id.value(), broker().node_id()) << "v" << v;
        EXPECT_EQ(p->leader_epoch, _epoch) << "v" << v;
    }
}

// As above for a negative epoch (older than any).
TEST_F(begin_quorum_epoch_test, negative_epoch_is_fenced_leader_epoch) {
    auto resp = send(begin(k_other_node, -1));
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::fenced_leader_epoch);
}

// Kafka (hasValidTopicPartition): INVALID_REQUEST at the top level for any
// partition but __cluster_metadata-0.
TEST_F(begin_quorum_epoch_test, other_topic_is_invalid_request) {
    auto resp = send(begin(k_other_node, _epoch - 1, "not-the-metadata-topic", 0));
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
    EXPECT_TRUE(resp.topics.empty());
}

TEST_F(begin_quorum_epoch_test, other_partition_is_invalid_request) {
    auto resp = send(begin(k_other_node, _epoch - 1, "__cluster_metadata", 1));
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
    EXPECT_TRUE(resp.topics.empty());
}

}  // namespace
}  // namespace samsa::server::test
