// DescribeGroups (key 15) against the in-process broker: a stable group's
// state, protocol and members, an empty group after its member left, and an
// unknown group described as Dead with NONE (Kafka's answer up to v5).
#include <gtest/gtest.h>

#include "group_support.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_groups_request;
using protocol::describe_groups_response;

class describe_groups_test : public group_test {
  protected:
    describe_groups_response describe(std::vector<std::string> groups) {
        describe_groups_request req;
        req.groups = std::move(groups);
        return broker().call<describe_groups_response>(req, 5);
    }
};

TEST_F(describe_groups_test, stable_group_with_its_member) {
    const auto group = unique_name("dg-stable");
    auto m = join_stable(broker(), group);
    auto resp = describe({group});
    ASSERT_EQ(resp.groups.size(), 1u);
    const auto& g = resp.groups[0];
    EXPECT_ERROR(g.error_code, error_code::none);
    EXPECT_EQ(g.group_id, group);
    EXPECT_EQ(g.group_state, "Stable");
    EXPECT_EQ(g.protocol_type, "consumer");
    EXPECT_EQ(g.protocol_data, "range");
    ASSERT_EQ(g.members.size(), 1u);
    EXPECT_EQ(g.members[0].member_id, m.member_id);
    EXPECT_EQ(g.members[0].client_id, "samsa-unit");
    EXPECT_EQ(g.members[0].client_host, "/127.0.0.1");
}

TEST_F(describe_groups_test, group_is_empty_after_its_member_left) {
    const auto group = unique_name("dg-empty");
    auto m = join_stable(broker(), group);
    protocol::leave_group_request leave;
    leave.group_id = group;
    leave.members.emplace_back().member_id = m.member_id;
    ASSERT_ERROR(broker().call<protocol::leave_group_response>(leave, 5).error_code,
                 error_code::none);
    auto resp = describe({group});
    ASSERT_EQ(resp.groups.size(), 1u);
    EXPECT_EQ(resp.groups[0].group_state, "Empty");
    EXPECT_TRUE(resp.groups[0].members.empty());
}

TEST_F(describe_groups_test, unknown_group_is_dead) {
    join_stable(broker(), unique_name("dg-warm"));
    auto resp = describe({unique_name("dg-missing")});
    ASSERT_EQ(resp.groups.size(), 1u);
    EXPECT_ERROR(resp.groups[0].error_code, error_code::none);
    EXPECT_EQ(resp.groups[0].group_state, "Dead");
    EXPECT_TRUE(resp.groups[0].members.empty());
}

TEST_F(describe_groups_test, several_groups_in_order) {
    const auto a = unique_name("dg-a");
    const auto b = unique_name("dg-b");
    join_stable(broker(), a);
    auto resp = describe({a, b});
    ASSERT_EQ(resp.groups.size(), 2u);
    EXPECT_EQ(resp.groups[0].group_id, a);
    EXPECT_EQ(resp.groups[0].group_state, "Stable");
    EXPECT_EQ(resp.groups[1].group_id, b);
    EXPECT_EQ(resp.groups[1].group_state, "Dead");
}

}  // namespace
}  // namespace samsa::server::test
