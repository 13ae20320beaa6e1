// ConsumerGroupDescribe (key 69, KIP-848) against the in-process broker: a
// consumer group is described with its epochs, assignor and members (their
// subscription and assignment, topic ids with names); authorized operations
// are sent only when asked for (without an authorizer: every group operation,
// as Kafka's AuthHelper answers). A group that does not exist, or is a
// classic group, is GROUP_ID_NOT_FOUND with Kafka's message; each group is
// answered on its own and in request order.
#include <gtest/gtest.h>

#include <climits>

#include "group_support.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_describe_response.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"

namespace samsa::server::test {
namespace {

using protocol::consumer_group_describe_request;
using protocol::consumer_group_describe_response;
using described = consumer_group_describe_response::described_group;

// READ (3), DELETE (6), DESCRIBE (8), DESCRIBE_CONFIGS (10) and ALTER_CONFIGS
// (11): the operations on a group (Kafka 4's AclEntry).
constexpr int32_t k_group_operations = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);

class consumer_group_describe_test : public group_test {
  protected:
    // Joins `member` to consumer group `group` subscribed to `topic` (v1).
    void join_consumer(const std::string& group, const std::string& member,
                       const std::string& topic) {
        protocol::consumer_group_heartbeat_request req;
        req.group_id = group;
        req.member_id = member;
        req.member_epoch = 0;
        req.rebalance_timeout_ms = 30000;
        req.subscribed_topic_names = std::vector<std::string>{topic};
        req.topic_partitions.emplace();
        protocol::consumer_group_heartbeat_response resp;
        ASSERT_TRUE(broker_fixture::wait_until([&] {
            resp = broker().call<protocol::consumer_group_heartbeat_response>(req, 1);
            auto ec = error_code(resp.error_code);
            return ec != error_code::coordinator_load_in_progress &&
                   ec != error_code::not_coordinator && ec != error_code::coordinator_not_available;
        }));
        ASSERT_ERROR(resp.error_code, error_code::none);
    }
    consumer_group_describe_response describe(const std::vector<std::string>& groups,
                                              bool include_operations = false) {
        consumer_group_describe_request req;
        req.group_ids = groups;
        req.include_authorized_operations = include_operations;
        auto resp = broker().call<consumer_group_describe_response>(req, 0);
        EXPECT_EQ(resp.groups.size(), groups.size());
        return resp;
    }
};

TEST_F(consumer_group_describe_test, a_consumer_group_is_described) {
    const auto group = unique_name("cgd-ok");
    const auto topic = unique_name("cgd-topic");
    const uuid topic_id = broker().create_topic(topic, 2);
    const auto member = unique_name("cgd-member");
    join_consumer(group, member, topic);
    if (HasFatalFailure()) {
        return;
    }
    auto resp = describe({group});
    ASSERT_EQ(resp.groups.size(), 1u);
    const auto& g = resp.groups[0];
    EXPECT_ERROR(g.error_code, error_code::none);
    EXPECT_FALSE(g.error_message.has_value());
    EXPECT_EQ(g.group_id, group);
    EXPECT_EQ(g.group_state, "Stable");
    EXPECT_GE(g.group_epoch, 1);
    EXPECT_EQ(g.assignment_epoch, g.group_epoch);
    EXPECT_EQ(g.assignor_name, "uniform");
    EXPECT_EQ(g.authorized_operations, INT32_MIN);  // not asked for
    ASSERT_EQ(g.members.size(), 1u);
    const auto& m = g.members[0];
    EXPECT_EQ(m.member_id, member);
    EXPECT_EQ(m.member_epoch, g.group_epoch);
    EXPECT_EQ(m.client_id, broker_fixture::k_client_id);
    EXPECT_EQ(m.subscribed_topic_names, std::vector<std::string>{topic});
    ASSERT_EQ(m.assignment.topic_partitions.size(), 1u);
    EXPECT_EQ(m.assignment.topic_partitions[0].topic_id, topic_id);
    EXPECT_EQ(m.assignment.topic_partitions[0].topic_name, topic);
    EXPECT_EQ(m.assignment.topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));
    ASSERT_EQ(m.target_assignment.topic_partitions.size(), 1u);
    EXPECT_EQ(m.target_assignment.topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));
}

TEST_F(consumer_group_describe_test, authorized_operations_only_when_asked_for) {
    const auto group = unique_name("cgd-ops");
    const auto topic = unique_name("cgd-topic");
    broker().create_topic(topic);
    join_consumer(group, unique_name("cgd-member"), topic);
    if (HasFatalFailure()) {
        return;
    }
    const auto missing = unique_name("cgd-missing");
    auto resp = describe({group, missing}, true);
    ASSERT_EQ(resp.groups.size(), 2u);
    EXPECT_ERROR(resp.groups[0].error_code, error_code::none);
    EXPECT_EQ(resp.groups[0].authorized_operations, k_group_operations);
    // A group in error has none.
    EXPECT_ERROR(resp.groups[1].error_code, error_code::group_id_not_found);
    EXPECT_EQ(resp.groups[1].authorized_operations, INT32_MIN);
}

TEST_F(consumer_group_describe_test, an_unknown_group_is_group_id_not_found) {
    const auto group = unique_name("cgd-missing");
    auto resp = describe({group});
    ASSERT_EQ(resp.groups.size(), 1u);
    EXPECT_EQ(resp.groups[0].group_id, group);
    EXPECT_ERROR(resp.groups[0].error_code, error_code::group_id_not_found);
    EXPECT_EQ(resp.groups[0].error_message.value_or(""), "Group " + group + " not found.");
    EXPECT_TRUE(resp.groups[0].members.empty());
}

TEST_F(consumer_group_describe_test, a_classic_group_is_not_a_consumer_group) {
    const auto group = unique_name("cgd-classic");
    join_stable(broker(), group);
    auto resp = describe({group});
    ASSERT_EQ(resp.groups.size(), 1u);
    EXPECT_ERROR(resp.groups[0].error_code, error_code::group_id_not_found);
    EXPECT_EQ(resp.groups[0].error_message.value_or(""),
              "Group " + group + " is not a consumer group.");
}

TEST_F(consumer_group_describe_test, each_group_is_answered_in_request_order) {
    const auto a = unique_name("cgd-a");
    const auto b = unique_name("cgd-b");
    auto resp = describe({a, b});
    ASSERT_EQ(resp.groups.size(), 2u);
    EXPECT_EQ(resp.groups[0].group_id, a);
    EXPECT_EQ(resp.groups[1].group_id, b);
    EXPECT_ERROR(resp.groups[0].error_code, error_code::group_id_not_found);
    EXPECT_ERROR(resp.groups[1].error_code, error_code::group_id_not_found);
}

}  // namespace
}  // namespace samsa::server::test
