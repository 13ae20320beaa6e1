// FetchSnapshot (key 59, KIP-630) on the controller listener, answered as
// Kafka's KafkaRaftClient answers it: INCONSISTENT_CLUSTER_ID (top level) for
// another cluster's id, FENCED_LEADER_EPOCH (partition level, naming the
// current leader) for a current leader epoch below the leader's,
// SNAPSHOT_NOT_FOUND for a snapshot id the leader does not have, and
// UNKNOWN_TOPIC_OR_PARTITION (partition level) for a partition other than
// __cluster_metadata-0. A FetchSnapshot in an epoch above the leader's makes
// Samsa's leader step down (raft_node::step_down_for), so none is sent; the
// fetching replica is -1, so that no observer is recorded; after each test
// the broker still leads the quorum in the epoch it led before.
#include <gtest/gtest.h>

#include <climits>

#include "protocol/generated/fetch_snapshot_request.h"
#include "protocol/generated/fetch_snapshot_response.h"
#include "quorum_test_support.h"

namespace samsa::server::test {
namespace {

using protocol::fetch_snapshot_request;
using protocol::fetch_snapshot_response;

// A snapshot end offset no snapshot of the fixture's metadata log reaches.
constexpr int64_t k_no_such_offset = int64_t(1) << 40;

class fetch_snapshot_test : public quorum_test {
  protected:
    // A FetchSnapshot of snapshot (end_offset, snapshot_epoch) from position 0,
    // by a replica in `leader_epoch`.
    fetch_snapshot_request fetch(int32_t leader_epoch, int64_t end_offset, int32_t snapshot_epoch,
                                 const std::string& topic = "__cluster_metadata",
                                 int32_t partition = 0) {
        fetch_snapshot_request req;
        req.cluster_id = broker().cluster_id();
        req.replica_id = no_node;
        req.max_bytes = 1 << 20;
        auto& t = req.topics.emplace_back();
        t.name = topic;
        auto& p = t.partitions.emplace_back();
        p.partition = partition;
        p.current_leader_epoch = leader_epoch;
        p.snapshot_id.end_offset = end_offset;
        p.snapshot_id.epoch = snapshot_epoch;
        p.position = 0;
        return req;
    }

    fetch_snapshot_response send(const fetch_snapshot_request& req, int16_t version = 0) {
        return broker().call<fetch_snapshot_response>(req, version, listener_kind::controller);
    }

    static const fetch_snapshot_response::topic_snapshot::partition_snapshot* only_partition(
        const fetch_snapshot_response& resp) {
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "expected one topic of one partition, got " << resp.topics.size()
                          << " topics";
            return nullptr;
        }
        return &resp.topics[0].partitions[0];
    }
};

TEST_F(fetch_snapshot_test, other_cluster_id_is_inconsistent_cluster_id) {
    auto req = fetch(_epoch - 1, k_no_such_offset, _epoch);
    req.cluster_id = "not-" + broker().cluster_id();
    for (int16_t v = 0; v <= fetch_snapshot_request::max_version; ++v) {
        auto resp = send(req, v);
        EXPECT_ERROR(resp.error_code, error_code::inconsistent_cluster_id) << "v" << v;
        EXPECT_TRUE(resp.topics.empty()) << "v" << v;
    }
}

TEST_F(fetch_snapshot_test, leader_epoch_below_current_is_fenced_leader_epoch) {
    for (int16_t v = 0; v <= fetch_snapshot_request::max_version; ++v) {
        auto resp = send(fetch(_epoch - 1, k_no_such_offset, _epoch), v);
        EXPECT_ERROR(resp.error_code, error_code::none) << "v" << v;
        ASSERT_EQ(resp.topics.size(), 1u);
        EXPECT_EQ(resp.topics[0].name, "__cluster_metadata");
        const auto* p = only_partition(resp);
        ASSERT_NE(p, nullptr);
        EXPECT_ERROR(p->error_code, error_code::fenced_leader_epoch) << "v" << v;
        EXPECT_EQ(p->current_leader.leader_id.value(), broker().node_id()) << "v" << v;
        EXPECT_EQ(p->current_leader.leader_epoch, _epoch) << "v" << v;
    }
}

TEST_F(fetch_snapshot_test, unknown_snapshot_id_is_snapshot_not_found) {
    for (int16_t v = 0; v <= fetch_snapshot_request::max_version; ++v) {
        auto resp = send(fetch(_epoch, k_no_such_offset, _epoch), v);
        EXPECT_ERROR(resp.error_code, error_code::none) << "v" << v;
        const auto* p = only_partition(resp);
        ASSERT_NE(p, nullptr);
        EXPECT_ERROR(p->error_code, error_code::snapshot_not_found) << "v" << v;
        EXPECT_EQ(p->current_leader.leader_id.value(), broker().node_id()) << "v" << v;
        EXPECT_EQ(p->current_leader.leader_epoch, _epoch) << "v" << v;
        EXPECT_EQ(p->unaligned_records.size(), 0u) << "v" << v;
    }
}

TEST_F(fetch_snapshot_test, snapshot_of_a_later_epoch_is_snapshot_not_found) {
    // The right epoch to ask in, a snapshot id of an epoch no log entry has.
    auto resp = send(fetch(_epoch, 0, _epoch + 1000));
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::snapshot_not_found);
}

// Kafka (FetchSnapshotRequest.forTopicPartition): a FetchSnapshot of another
// partition is UNKNOWN_TOPIC_OR_PARTITION at the partition level, in a
// response naming that partition.
TEST_F(fetch_snapshot_test, other_topic_is_unknown_topic_or_partition) {
    auto resp = send(fetch(_epoch - 1, k_no_such_offset, _epoch, "not-the-metadata-topic", 0));
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].name, "not-the-metadata-topic");
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::unknown_topic_or_partition);
}

TEST_F(fetch_snapshot_test, other_partition_is_unknown_topic_or_partition) {
    auto resp = send(fetch(_epoch - 1, k_no_such_offset, _epoch, "__cluster_metadata", 1));
    EXPECT_ERROR(resp.error_code, error_code::none);
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->index, 1);
    EXPECT_ERROR(p->error_code, error_code::unknown_topic_or_partition);
}

// Kafka (validateLeaderOnlyRequest): an epoch above the leader's is
// UNKNOWN_LEADER_EPOCH; for 2^31 - 1 that answer comes before any step-down
// (raft/request_checks.h), so the leader never adopts an epoch that wraps.
TEST_F(fetch_snapshot_test, epoch_above_valid_range_is_unknown_leader_epoch) {
    auto resp = send(fetch(INT32_MAX, k_no_such_offset, _epoch));
    const auto* p = only_partition(resp);
    ASSERT_NE(p, nullptr);
    EXPECT_ERROR(p->error_code, error_code::unknown_leader_epoch);
}

}  // namespace
}  // namespace samsa::server::test
