// ConsumerGroupHeartbeat (key 68, KIP-848) against the in-process broker: a
// member joins with the id it generated (v1, KIP-1082) or one the broker
// generates (v0), gets its assignment and leaves; requests Kafka's
// GroupCoordinatorService refuses are INVALID_REQUEST with its messages
// (empty ids, a first heartbeat without rebalance timeout, owned partitions
// or subscription, an invalid epoch, a static leave without instance id),
// UNSUPPORTED_ASSIGNOR and INVALID_REGULAR_EXPRESSION; an unknown member or
// group is UNKNOWN_MEMBER_ID and a stale epoch FENCED_MEMBER_EPOCH.
#include <gtest/gtest.h>

#include "group_support.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"

namespace samsa::server::test {
namespace {

using protocol::consumer_group_heartbeat_request;
using protocol::consumer_group_heartbeat_response;

// A first heartbeat (epoch 0) of `member` subscribing to `topics`.
consumer_group_heartbeat_request join_request(const std::string& group, const std::string& member,
                                              const std::vector<std::string>& topics) {
    consumer_group_heartbeat_request req;
    req.group_id = group;
    req.member_id = member;
    req.member_epoch = 0;
    req.rebalance_timeout_ms = 30000;
    req.subscribed_topic_names = topics;
    req.topic_partitions.emplace();
    return req;
}

bool coordinator_busy(int16_t code) {
    auto ec = error_code(code);
    return ec == error_code::coordinator_load_in_progress ||
           ec == error_code::coordinator_not_available || ec == error_code::not_coordinator;
}

class consumer_group_heartbeat_test : public group_test {
  protected:
    // Sends `req`, retrying while the coordinator is not ready.
    consumer_group_heartbeat_response beat(const consumer_group_heartbeat_request& req,
                                           int16_t version = 1) {
        consumer_group_heartbeat_response resp;
        EXPECT_TRUE(broker_fixture::wait_until([&] {
            resp = broker().call<consumer_group_heartbeat_response>(req, version);
            return !coordinator_busy(resp.error_code);
        }));
        return resp;
    }
    void expect_invalid(const consumer_group_heartbeat_request& req, const std::string& message,
                        int16_t version = 1) {
        auto resp = beat(req, version);
        EXPECT_ERROR(resp.error_code, error_code::invalid_request);
        EXPECT_EQ(resp.error_message.value_or(""), message);
        EXPECT_FALSE(resp.member_id.has_value());
        EXPECT_FALSE(resp.assignment.has_value());
    }
};

TEST_F(consumer_group_heartbeat_test, a_member_joins_is_assigned_and_leaves) {
    const auto group = unique_name("cgh-ok");
    const auto topic = unique_name("cgh-topic");
    const uuid topic_id = broker().create_topic(topic, 2);
    const auto member = unique_name("cgh-member");
    auto joined = beat(join_request(group, member, {topic}));
    ASSERT_ERROR(joined.error_code, error_code::none);
    EXPECT_EQ(joined.member_id.value_or(""), member);
    EXPECT_GE(joined.member_epoch, 1);
    EXPECT_EQ(joined.heartbeat_interval_ms, 5000);
    ASSERT_TRUE(joined.assignment.has_value());
    ASSERT_EQ(joined.assignment->topic_partitions.size(), 1u);
    EXPECT_EQ(joined.assignment->topic_partitions[0].topic_id, topic_id);
    EXPECT_EQ(joined.assignment->topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));

    consumer_group_heartbeat_request leave;
    leave.group_id = group;
    leave.member_id = member;
    leave.member_epoch = -1;
    auto left = beat(leave);
    EXPECT_ERROR(left.error_code, error_code::none);
    EXPECT_EQ(left.member_epoch, -1);
}

TEST_F(consumer_group_heartbeat_test, v0_generates_the_member_id_and_v1_requires_one) {
    const auto group = unique_name("cgh-ids");
    auto v0 = beat(join_request(group, "", {}), 0);
    ASSERT_ERROR(v0.error_code, error_code::none);
    EXPECT_FALSE(v0.member_id.value_or("").empty());
    EXPECT_GE(v0.member_epoch, 1);
    // KIP-1082: from v1 the client generates it, also when joining.
    expect_invalid(join_request(group, "", {}), "MemberId can't be empty.");
}

TEST_F(consumer_group_heartbeat_test, empty_ids_are_invalid) {
    expect_invalid(join_request("", "m-1", {}), "GroupId can't be empty.");
    const auto group = unique_name("cgh-empty");
    auto req = join_request(group, "m-1", {});
    req.instance_id = "";
    expect_invalid(req, "InstanceId can't be empty.");
    req = join_request(group, "m-1", {});
    req.rack_id = "";
    expect_invalid(req, "RackId can't be empty.");
    // A heartbeat after the join needs the member id in v0 too.
    req = join_request(group, "", {});
    req.member_epoch = 3;
    expect_invalid(req, "MemberId can't be empty.", 0);
}

TEST_F(consumer_group_heartbeat_test, a_first_heartbeat_needs_its_full_state) {
    const auto group = unique_name("cgh-first");
    auto req = join_request(group, "m-1", {});
    req.rebalance_timeout_ms = -1;
    expect_invalid(req, "RebalanceTimeoutMs must be provided in first request.");

    req = join_request(group, "m-1", {});
    req.topic_partitions = std::nullopt;
    expect_invalid(req, "TopicPartitions must be empty when (re-)joining.");
    req = join_request(group, "m-1", {});
    req.topic_partitions->emplace_back().partitions = {0};
    expect_invalid(req, "TopicPartitions must be empty when (re-)joining.");

    // Neither names nor a regex: refused (Kafka's wording of this one has
    // changed across 4.x releases; the code has not).
    req = join_request(group, "m-1", {});
    req.subscribed_topic_names = std::nullopt;
    auto resp = beat(req);
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
}

TEST_F(consumer_group_heartbeat_test, invalid_epochs_are_invalid) {
    const auto group = unique_name("cgh-epoch");
    auto req = join_request(group, "m-1", {});
    req.member_epoch = -3;
    expect_invalid(req, "MemberEpoch is invalid.");
    // -2 is a static member's leave: it names its instance.
    req.member_epoch = -2;
    expect_invalid(req, "InstanceId can't be null.");
}

TEST_F(consumer_group_heartbeat_test, an_unknown_server_assignor_is_unsupported_assignor) {
    auto req = join_request(unique_name("cgh-assignor"), "m-1", {});
    req.server_assignor = "sticky";
    auto resp = beat(req);
    EXPECT_ERROR(resp.error_code, error_code::unsupported_assignor);
    EXPECT_EQ(resp.error_message.value_or(""),
              "ServerAssignor sticky is not supported. Supported assignors: uniform, range.");
    req.server_assignor = "range";
    EXPECT_ERROR(beat(req).error_code, error_code::none);
}

TEST_F(consumer_group_heartbeat_test, an_invalid_regex_is_invalid_regular_expression) {
    auto req = join_request(unique_name("cgh-regex"), "m-1", {});
    req.subscribed_topic_names = std::nullopt;
    req.subscribed_topic_regex = "cgh-(unclosed";
    auto resp = beat(req);
    EXPECT_ERROR(resp.error_code, error_code::invalid_regular_expression);
    EXPECT_FALSE(resp.member_id.has_value());
}

TEST_F(consumer_group_heartbeat_test, unknown_members_and_stale_epochs_are_refused) {
    const auto group = unique_name("cgh-fenced");
    // No such group: Kafka's UnknownMemberIdException.
    consumer_group_heartbeat_request hb;
    hb.group_id = group;
    hb.member_id = "m-1";
    hb.member_epoch = 1;
    auto resp = beat(hb);
    EXPECT_ERROR(resp.error_code, error_code::unknown_member_id);
    EXPECT_EQ(resp.error_message.value_or(""), "Consumer group " + group + " not found.");

    auto joined = beat(join_request(group, "m-1", {}));
    ASSERT_ERROR(joined.error_code, error_code::none);
    hb.member_id = "m-2";
    hb.member_epoch = joined.member_epoch;
    EXPECT_ERROR(beat(hb).error_code, error_code::unknown_member_id);
    hb.member_id = "m-1";
    hb.member_epoch = joined.member_epoch + 5;
    EXPECT_ERROR(beat(hb).error_code, error_code::fenced_member_epoch);
    hb.member_epoch = joined.member_epoch;
    EXPECT_ERROR(beat(hb).error_code, error_code::none);
}

}  // namespace
}  // namespace samsa::server::test
