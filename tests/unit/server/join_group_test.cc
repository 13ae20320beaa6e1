// JoinGroup (key 11) against the in-process broker: the classic protocol's
// member id handshake (MEMBER_ID_REQUIRED since v4), and the errors Kafka
// answers for empty group ids, session timeouts outside the broker's bounds,
// unknown member ids, missing or mismatched protocols and bad instance ids.
#include <gtest/gtest.h>

#include "group_support.h"

namespace samsa::server::test {
namespace {

using protocol::join_group_request;
using protocol::join_group_response;

class join_group_test : public group_test {};

TEST_F(join_group_test, first_join_since_v4_is_member_id_required) {
    auto resp = join(broker(), join_request(unique_name("jg-required"), ""));
    EXPECT_ERROR(resp.error_code, error_code::member_id_required);
    EXPECT_FALSE(resp.member_id.empty());
}

TEST_F(join_group_test, join_with_given_member_id_completes) {
    const auto group = unique_name("jg-ok");
    auto first = join(broker(), join_request(group, ""));
    ASSERT_ERROR(first.error_code, error_code::member_id_required);
    auto resp = join(broker(), join_request(group, first.member_id));
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_EQ(resp.member_id, first.member_id);
    EXPECT_EQ(resp.leader, first.member_id);
    EXPECT_GE(resp.generation_id, 1);
    EXPECT_EQ(resp.protocol_name, "range");
    ASSERT_EQ(resp.members.size(), 1u);  // the leader gets the members
}

TEST_F(join_group_test, v3_join_needs_no_member_id_round) {
    auto resp = join(broker(), join_request(unique_name("jg-v3"), ""), 3);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_FALSE(resp.member_id.empty());
}

TEST_F(join_group_test, empty_group_id_is_invalid_group_id) {
    auto resp = join(broker(), join_request("", ""));
    EXPECT_ERROR(resp.error_code, error_code::invalid_group_id);
}

TEST_F(join_group_test, session_timeout_below_minimum_is_invalid_session_timeout) {
    auto req = join_request(unique_name("jg-short"), "");
    req.session_timeout_ms = 10;  // group.min.session.timeout.ms is 6000
    EXPECT_ERROR(join(broker(), req).error_code, error_code::invalid_session_timeout);
}

TEST_F(join_group_test, session_timeout_above_maximum_is_invalid_session_timeout) {
    auto req = join_request(unique_name("jg-long"), "");
    req.session_timeout_ms = 1800001;  // group.max.session.timeout.ms is 1800000
    EXPECT_ERROR(join(broker(), req).error_code, error_code::invalid_session_timeout);
}

TEST_F(join_group_test, unknown_member_id_is_unknown_member_id) {
    const auto group = unique_name("jg-unknown");
    join_stable(broker(), group);
    auto resp = join(broker(), join_request(group, "not-a-member"));
    EXPECT_ERROR(resp.error_code, error_code::unknown_member_id);
}

TEST_F(join_group_test, unknown_member_id_of_new_group_is_unknown_member_id) {
    auto resp = join(broker(), join_request(unique_name("jg-unknown-new"), "not-a-member"));
    EXPECT_ERROR(resp.error_code, error_code::unknown_member_id);
}

TEST_F(join_group_test, no_protocols_is_inconsistent_group_protocol) {
    auto req = join_request(unique_name("jg-none"), "");
    req.protocols.clear();
    EXPECT_ERROR(join(broker(), req).error_code, error_code::inconsistent_group_protocol);
}

TEST_F(join_group_test, empty_protocol_type_is_inconsistent_group_protocol) {
    auto req = join_request(unique_name("jg-no-type"), "");
    req.protocol_type = "";
    EXPECT_ERROR(join(broker(), req).error_code, error_code::inconsistent_group_protocol);
}

TEST_F(join_group_test, other_protocol_type_is_inconsistent_group_protocol) {
    const auto group = unique_name("jg-mismatch");
    join_stable(broker(), group);
    auto req = join_request(group, "", {}, "connect");
    auto resp = join(broker(), req);
    EXPECT_ERROR(resp.error_code, error_code::inconsistent_group_protocol);
}

TEST_F(join_group_test, unsupported_protocol_is_inconsistent_group_protocol) {
    const auto group = unique_name("jg-protocol");
    join_stable(broker(), group);
    auto req = join_request(group, "");
    req.protocols[0].name = "roundrobin";  // the group speaks only "range"
    EXPECT_ERROR(join(broker(), req).error_code, error_code::inconsistent_group_protocol);
}

TEST_F(join_group_test, invalid_group_instance_id_is_invalid_group_id) {
    auto req = join_request(unique_name("jg-instance"), "");
    req.group_instance_id = "bad instance!";
    EXPECT_ERROR(join(broker(), req).error_code, error_code::invalid_group_id);
}

TEST_F(join_group_test, static_member_gets_member_id_at_once) {
    auto req = join_request(unique_name("jg-static"), "");
    req.group_instance_id = "instance-1";
    auto resp = join(broker(), req);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_FALSE(resp.member_id.empty());
}

}  // namespace
}  // namespace samsa::server::test
