// AlterPartitionReassignments (key 45) against the in-process one-broker
// cluster, with Kafka's per-partition codes and messages
// (ReplicationControlManager.alterPartitionReassignment): an unknown topic
// or partition is UNKNOWN_TOPIC_OR_PARTITION, a cancellation where none runs
// NO_REASSIGNMENT_IN_PROGRESS, and an empty target, a broker named twice or
// an unregistered broker INVALID_REPLICA_ASSIGNMENT. A target equal to the
// current replicas succeeds and starts nothing. The top-level error is NONE
// with a null message.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"

namespace samsa::server::test {
namespace {

using protocol::alter_partition_reassignments_request;
using protocol::alter_partition_reassignments_response;
using partition_response = alter_partition_reassignments_response::reassignable_topic_response::
    reassignable_partition_response;

class alter_partition_reassignments_test : public broker_test {
  protected:
    // Reassigns (or, with nullopt, cancels) one partition; its answer.
    partition_response reassign(const std::string& topic, int32_t partition,
                                std::optional<std::vector<int32_t>> replicas) {
        alter_partition_reassignments_request req;
        auto& t = req.topics.emplace_back();
        t.name = topic;
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        if (replicas) {
            p.replicas = to_node_ids(*replicas);
        }
        auto resp = broker().call<alter_partition_reassignments_response>(req, 0);
        EXPECT_ERROR(resp.error_code, error_code::none);
        EXPECT_FALSE(resp.error_message.has_value());
        if (resp.responses.size() != 1 || resp.responses[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected response shape";
            return {};
        }
        EXPECT_EQ(resp.responses[0].name, topic);
        EXPECT_EQ(resp.responses[0].partitions[0].partition_index, partition);
        return resp.responses[0].partitions[0];
    }
};

TEST_F(alter_partition_reassignments_test, the_current_replicas_as_target_change_nothing) {
    const auto topic = unique_name("reassign-same");
    broker().create_topic(topic);
    auto r = reassign(topic, 0, std::vector<int32_t>{broker().node_id()});
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_FALSE(r.error_message.has_value());

    protocol::list_partition_reassignments_request list;
    list.topics.emplace().emplace_back().name = topic;
    list.topics->back().partition_indexes = {0};
    auto listed = broker().call<protocol::list_partition_reassignments_response>(list, 0);
    EXPECT_ERROR(listed.error_code, error_code::none);
    EXPECT_TRUE(listed.topics.empty());
    auto md = broker().metadata({topic});
    ASSERT_EQ(md.topics.size(), 1u);
    ASSERT_EQ(md.topics[0].partitions.size(), 1u);
    EXPECT_EQ(md.topics[0].partitions[0].replica_nodes, to_node_ids({broker().node_id()}));
}

TEST_F(alter_partition_reassignments_test, an_unknown_topic_is_unknown_topic_or_partition) {
    const auto topic = unique_name("reassign-missing");
    auto r = reassign(topic, 0, std::vector<int32_t>{broker().node_id()});
    EXPECT_ERROR(r.error_code, error_code::unknown_topic_or_partition);
    EXPECT_EQ(r.error_message.value_or(""), "Unable to find a topic named " + topic + ".");
    // A cancellation too.
    r = reassign(topic, 0, std::nullopt);
    EXPECT_ERROR(r.error_code, error_code::unknown_topic_or_partition);
}

TEST_F(alter_partition_reassignments_test, an_unknown_partition_is_unknown_topic_or_partition) {
    const auto topic = unique_name("reassign-partition");
    broker().create_topic(topic, 2);
    for (int32_t partition : {2, 7, -1}) {
        SCOPED_TRACE(partition);
        auto r = reassign(topic, partition, std::vector<int32_t>{broker().node_id()});
        EXPECT_ERROR(r.error_code, error_code::unknown_topic_or_partition);
        EXPECT_EQ(r.error_message.value_or(""),
                  "Unable to find partition " + topic + ":" + std::to_string(partition) + ".");
    }
}

TEST_F(alter_partition_reassignments_test, cancelling_where_none_runs_is_no_reassignment) {
    const auto topic = unique_name("reassign-cancel");
    broker().create_topic(topic);
    auto r = reassign(topic, 0, std::nullopt);
    EXPECT_ERROR(r.error_code, error_code::no_reassignment_in_progress);
    EXPECT_EQ(r.error_message.value_or(""), "No partition reassignment is in progress.");
}

TEST_F(alter_partition_reassignments_test, invalid_targets_are_invalid_replica_assignment) {
    const auto topic = unique_name("reassign-invalid");
    broker().create_topic(topic);
    const int32_t self = broker().node_id();
    auto r = reassign(topic, 0, std::vector<int32_t>{});
    EXPECT_ERROR(r.error_code, error_code::invalid_replica_assignment);
    EXPECT_EQ(r.error_message.value_or(""),
              "The manual partition assignment includes an empty replica list.");

    r = reassign(topic, 0, std::vector<int32_t>{self, self});
    EXPECT_ERROR(r.error_code, error_code::invalid_replica_assignment);
    EXPECT_EQ(r.error_message.value_or(""), "The manual partition assignment includes the broker " +
                                                std::to_string(self) + " more than once.");

    // Brokers are checked in id order: the least unregistered one is named.
    r = reassign(topic, 0, std::vector<int32_t>{9, self, 7});
    EXPECT_ERROR(r.error_code, error_code::invalid_replica_assignment);
    EXPECT_EQ(r.error_message.value_or(""),
              "The manual partition assignment includes broker 7, but no such broker is "
              "registered.");
}

TEST_F(alter_partition_reassignments_test, each_partition_is_answered_on_its_own) {
    const auto topic = unique_name("reassign-mixed");
    broker().create_topic(topic, 2);
    alter_partition_reassignments_request req;
    auto& t = req.topics.emplace_back();
    t.name = topic;
    t.partitions.emplace_back().partition_index = 0;
    t.partitions.back().replicas = to_node_ids({broker().node_id()});
    t.partitions.emplace_back().partition_index = 1;
    t.partitions.back().replicas = to_node_ids({42});
    t.partitions.emplace_back().partition_index = 5;
    t.partitions.back().replicas = to_node_ids({broker().node_id()});
    auto resp = broker().call<alter_partition_reassignments_response>(req, 0);
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.responses.size(), 1u);
    ASSERT_EQ(resp.responses[0].partitions.size(), 3u);
    const auto& ps = resp.responses[0].partitions;
    EXPECT_EQ(ps[0].partition_index, 0);
    EXPECT_ERROR(ps[0].error_code, error_code::none);
    EXPECT_EQ(ps[1].partition_index, 1);
    EXPECT_ERROR(ps[1].error_code, error_code::invalid_replica_assignment);
    EXPECT_EQ(ps[2].partition_index, 5);
    EXPECT_ERROR(ps[2].error_code, error_code::unknown_topic_or_partition);
}

}  // namespace
}  // namespace samsa::server::test
