// EndQuorumEpoch (key 54, KIP-595) on the controller listener: the requests
// the one-node quorum must refuse, answered as Kafka's KafkaRaftClient answers
// them: INCONSISTENT_CLUSTER_ID (top level) for another cluster's id,
// FENCED_LEADER_EPOCH (partition level, naming the current leader) for an
// epoch below the current one, INVALID_REQUEST (top level) for a partition
// other than __cluster_metadata-0. An EndQuorumEpoch the quorum accepted
// could make the broker stand for election again, so only requests that must
// be refused are sent, and after each test the broker still leads the quorum in
// the epoch it led before.
#include <gtest/gtest.h>

#include "protocol/generated/end_quorum_epoch_request.h"
#include "protocol/generated/end_quorum_epoch_response.h"
#include "quorum_test_support.h"

namespace samsa::server::test {
namespace {

using protocol::end_quorum_epoch_request;
using protocol::end_quorum_epoch_response;

// A node id that is not a voter of the one-node quorum.
constexpr int32_t k_other_node = 2;

class end_quorum_epoch_test : public quorum_test {
  protected:
    // `leader` resigning the leadership of `epoch`, naming this node its
    // successor.
    end_quorum_epoch_request end_epoch(int32_t leader, int32_t epoch,
                                       const std::string& topic = "__cluster_metadata",
                                       int32_t partition = 0) {
        end_quorum_epoch_request req;
        req.cluster_id = broker().cluster_id();
        auto& t = req.topics.emplace_back();
        t.topic_name = topic;
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        p.leader_id = node_id{leader};
        p.leader_epoch = epoch;
        p.preferred_successors.push_back(broker().node_id());  // v0
        auto& c = p.preferred_candidates.emplace_back();       // v1
        c.candidate_id = node_id{broker().node_id()};
        return req;
    }

    end_quorum_epoch_response send(const end_quorum_epoch_request& req, int16_t version = 0) {
        return broker().call<end_quorum_epoch_response>(req, version, listener_kind::controller);
    }

    static const end_quorum_epoch_response::topic_data::partition_data* only_partition(
        const end_quorum_epoch_response& resp) {
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "expected one topic of one partition, got " << resp.topics.size()
                          << " topics";
            return nullptr;
        }
        return &resp.topics[0].partitions[0];
    }
};

TEST_F(end_quorum_epoch_test, other_cluster_id_is_inconsistent_cluster_id) {
    auto req = end_epoch(k_other_node, _epoch - 1);
    req.cluster_id = "not-" + broker().cluster_id();
    for (int16_t v = 0; v <= end_quorum_epoch_request::max_version; ++v) {
        auto resp = send(req, v);
        EXPECT_ERROR(resp.error_code, error_code::inconsistent_cluster_id) << "v" << v;
        EXPECT_TRUE(resp.topics.empty()) << "v" << v;
    }
}

// Whatever the error, a stale resignation is refused and told who leads in which
// epoch (Kafka's and Samsa's answers agree on this much).
TEST_F(end_quorum_epoch_test, epoch_below_current_is_fenced_leader_epoch) {
    for (int16_t v = 0; v <= end_quorum_epoch_request::max_version; ++v) {
        auto resp = send(end_epoch(k_other_node, _epoch - 1), v);
        EXPECT_ERROR(resp.error_code, error_code::none) << "v" << v;
        const auto* p = only_partition(resp);
        ASSERT_NE(p, nullptr);
        EXPECT_ERROR(p->error_code, error_code::fenced_leader_epoch) << "v" << v;
        EXPECT_EQ(p->leader_id.value(), broker().node_id()) << "v" << v;
        EXPECT_EQ(p->leader_epoch, _epoch) << "v" << v;
    }
}

// As above for a negative epoch (older than any).
TEST_F(end_quorum_epoch_test, negative_epoch_is_fenced_leader_epoch) {
    auto resp = send(end_epoch(k_other_node, -1));
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::fenced_leader_epoch);
}

// Kafka (hasValidTopicPartition): INVALID_REQUEST at the top level for any
// partition but __cluster_metadata-0.
TEST_F(end_quorum_epoch_test, other_topic_is_invalid_request) {
    auto resp = send(end_epoch(k_other_node, _epoch - 1, "not-the-metadata-topic", 0));
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
    EXPECT_TRUE(resp.topics.empty());
}

TEST_F(end_quorum_epoch_test, other_partition_is_invalid_request) {
    auto resp = send(end_epoch(k_other_node, _epoch - 1, "__cluster_metadata", 1));
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
    EXPECT_TRUE(resp.topics.empty());
}

}  // namespace
}  // namespace samsa::server::test
