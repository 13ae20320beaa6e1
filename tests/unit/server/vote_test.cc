// Vote (key 52, KIP-595/KIP-853) on the controller listener: the requests the
// one-node quorum must refuse, answered as Kafka's KafkaRaftClient answers
// them: INCONSISTENT_CLUSTER_ID (top level) for another cluster's id,
// INVALID_REQUEST for a last offset or last epoch that cannot precede the
// candidate epoch, FENCED_LEADER_EPOCH (partition level) for a candidate epoch
// below the current one, INVALID_REQUEST (top level) for a partition other
// than __cluster_metadata-0; and Samsa's own refusal of an epoch outside
// [0, 2^31 - 1) (raft/request_checks.h). Only requests that must be refused
// are sent, and after each test the broker still leads the quorum in the
// epoch it led before.
#include <gtest/gtest.h>

#include <climits>

#include "protocol/generated/vote_request.h"
#include "protocol/generated/vote_response.h"
#include "quorum_test_support.h"

namespace samsa::server::test {
namespace {

using protocol::vote_request;
using protocol::vote_response;

// A node id that is not a voter of the one-node quorum.
constexpr int32_t k_other_node = 2;

class vote_test : public quorum_test {
  protected:
    // A Vote of `candidate` in `epoch` whose log ends at `last_offset` in
    // `last_epoch`.
    vote_request vote(int32_t candidate, int32_t epoch, int32_t last_epoch, int64_t last_offset,
                      const std::string& topic = "__cluster_metadata", int32_t partition = 0) {
        vote_request req;
        req.cluster_id = broker().cluster_id();
        auto& t = req.topics.emplace_back();
        t.topic_name = topic;
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        p.candidate_epoch = epoch;
        p.candidate_id = node_id{candidate};
        p.last_offset_epoch = last_epoch;
        p.last_offset = last_offset;
        return req;
    }

    vote_response send(const vote_request& req, int16_t version = 0) {
        return broker().call<vote_response>(req, version, listener_kind::controller);
    }

    // The single partition of an answer, or a failure.
    static const vote_response::topic_data::partition_data* only_partition(
        const vote_response& resp) {
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "expected one topic of one partition, got " << resp.topics.size()
                          << " topics";
            return nullptr;
        }
        return &resp.topics[0].partitions[0];
    }
};

TEST_F(vote_test, other_cluster_id_is_inconsistent_cluster_id) {
    // A stale epoch as well: refused whatever check comes first.
    auto req = vote(k_other_node, _epoch - 1, 0, 0);
    req.cluster_id = "not-" + broker().cluster_id();
    for (int16_t v = 0; v <= vote_request::max_version; ++v) {
        auto resp = send(req, v);
        EXPECT_ERROR(resp.error_code, error_code::inconsistent_cluster_id) << "v" << v;
        EXPECT_TRUE(resp.topics.empty()) << "v" << v;
    }
}

TEST_F(vote_test, last_epoch_not_below_candidate_epoch_is_invalid_request) {
    // KafkaRaftClient: a candidate bumps its epoch before it asks, so its log's
    // last epoch is below the epoch it stands in.
    auto resp = send(vote(k_other_node, _epoch + 5, _epoch + 5, 10));
    EXPECT_ERROR(resp.error_code, error_code::none);
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::invalid_request);
    EXPECT_FALSE(p->vote_granted);
    EXPECT_EQ(p->leader_id.value(), broker().node_id());
    EXPECT_EQ(p->leader_epoch, _epoch);
}

TEST_F(vote_test, negative_last_offset_is_invalid_request) {
    auto resp = send(vote(k_other_node, _epoch + 5, 0, -1));
    EXPECT_ERROR(resp.error_code, error_code::none);
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::invalid_request);
    EXPECT_FALSE(p->vote_granted);
}

TEST_F(vote_test, negative_candidate_epoch_is_invalid_request) {
    // No last epoch (>= 0) precedes a negative candidate epoch.
    auto resp = send(vote(k_other_node, -1, 0, 0));
    EXPECT_ERROR(resp.error_code, error_code::none);
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::invalid_request);
    EXPECT_FALSE(p->vote_granted);
}

// Samsa's own check (raft/request_checks.h): an epoch whose successor cannot be
// represented is never adopted, so a single request cannot make the quorum's
// epochs wrap. Kafka's Raft client has no such bound.
TEST_F(vote_test, epoch_above_valid_range_is_refused) {
    auto resp = send(vote(k_other_node, INT32_MAX, 0, 0));
    EXPECT_ERROR(resp.error_code, error_code::none);
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::invalid_request);
    EXPECT_FALSE(p->vote_granted);
    EXPECT_EQ(p->leader_id.value(), broker().node_id());
    EXPECT_EQ(p->leader_epoch, _epoch);
}

// Whatever the error, a stale candidate is refused and told who leads in
// which epoch (Kafka's and Samsa's answers agree on this much).
TEST_F(vote_test, candidate_epoch_below_current_is_refused) {
    auto resp = send(vote(k_other_node, _epoch - 1, 0, 0));
    EXPECT_ERROR(resp.error_code, error_code::none);
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_NE(p->error_code, 0);
    if (_epoch == 1) {
        // Candidate epoch 0: no last epoch (>= 0) precedes it, which Kafka
        // checks before the epoch, as Samsa does.
        EXPECT_ERROR(p->error_code, error_code::invalid_request);
    }
    EXPECT_FALSE(p->vote_granted);
    EXPECT_EQ(p->leader_id.value(), broker().node_id());
    EXPECT_EQ(p->leader_epoch, _epoch);
}

// Kafka (hasValidTopicPartition): INVALID_REQUEST at the top level for any
// partition but __cluster_metadata-0.
TEST_F(vote_test, other_topic_is_invalid_request) {
    auto resp = send(vote(k_other_node, _epoch - 1, 0, 0, "not-the-metadata-topic", 0));
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
    EXPECT_TRUE(resp.topics.empty());
}

// As above, for another partition of the metadata topic.
TEST_F(vote_test, other_partition_is_invalid_request) {
    auto resp = send(vote(k_other_node, _epoch - 1, 0, 0, "__cluster_metadata", 1));
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
    EXPECT_TRUE(resp.topics.empty());
}

// Kafka answers a Vote of two partitions INVALID_REQUEST at the top level.
TEST_F(vote_test, two_partitions_are_invalid_request) {
    auto req = vote(k_other_node, _epoch - 1, 0, 0);
    auto second = req.topics[0].partitions[0];
    second.partition_index = 1;
    req.topics[0].partitions.push_back(second);
    auto resp = send(req);
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
}

}  // namespace
}  // namespace samsa::server::test
