// LeaveGroup (key 13) against the in-process broker: a member leaves (v0-2
// by member id, v3+ as a batch of identities), and unknown groups, unknown
// members and empty group ids get Kafka's error codes.
#include <gtest/gtest.h>

#include "group_support.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"

namespace samsa::server::test {
namespace {

using protocol::leave_group_request;
using protocol::leave_group_response;

class leave_group_test : public group_test {
  protected:
    leave_group_response leave_v1(const std::string& group, const std::string& member) {
        leave_group_request req;
        req.group_id = group;
        req.member_id = member;
        return broker().call<leave_group_response>(req, 1);
    }
    leave_group_response leave_v5(const std::string& group,
                                  const std::vector<std::string>& members) {
        leave_group_request req;
        req.group_id = group;
        for (const auto& m : members) {
            req.members.emplace_back().member_id = m;
        }
        return broker().call<leave_group_response>(req, 5);
    }
    std::string state(const std::string& group) {
        protocol::describe_groups_request req;
        req.groups = {group};
        auto resp = broker().call<protocol::describe_groups_response>(req, 5);
        return resp.groups.empty() ? "" : resp.groups[0].group_state;
    }
};

TEST_F(leave_group_test, member_leaves_and_group_is_empty) {
    const auto group = unique_name("lg-ok");
    auto m = join_stable(broker(), group);
    auto resp = leave_v5(group, {m.member_id});
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.members.size(), 1u);
    EXPECT_ERROR(resp.members[0].error_code, error_code::none);
    EXPECT_EQ(resp.members[0].member_id, m.member_id);
    EXPECT_EQ(state(group), "Empty");
}

TEST_F(leave_group_test, v1_member_leaves) {
    const auto group = unique_name("lg-v1");
    auto m = join_stable(broker(), group);
    EXPECT_ERROR(leave_v1(group, m.member_id).error_code, error_code::none);
    EXPECT_EQ(state(group), "Empty");
}

TEST_F(leave_group_test, v1_unknown_member_is_unknown_member_id) {
    const auto group = unique_name("lg-v1-unknown");
    join_stable(broker(), group);
    EXPECT_ERROR(leave_v1(group, "not-a-member").error_code, error_code::unknown_member_id);
}

TEST_F(leave_group_test, v5_unknown_member_is_answered_per_member) {
    const auto group = unique_name("lg-v5-unknown");
    auto m = join_stable(broker(), group);
    auto resp = leave_v5(group, {"not-a-member", m.member_id});
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.members.size(), 2u);
    EXPECT_ERROR(resp.members[0].error_code, error_code::unknown_member_id);
    EXPECT_ERROR(resp.members[1].error_code, error_code::none);
}

TEST_F(leave_group_test, unknown_group_is_unknown_member_id) {
    join_stable(broker(), unique_name("lg-warm"));
    EXPECT_ERROR(leave_v1(unique_name("lg-missing"), "someone").error_code,
                 error_code::unknown_member_id);
}

TEST_F(leave_group_test, empty_group_id_is_invalid_group_id) {
    EXPECT_ERROR(leave_v1("", "someone").error_code, error_code::invalid_group_id);
}

}  // namespace
}  // namespace samsa::server::test
