// SyncGroup (key 14) against the in-process broker: the leader's assignment
// comes back, and unknown groups and members, stale generations, empty group
// ids and mismatched protocol type or name get Kafka's error codes.
#include <gtest/gtest.h>

#include "group_support.h"

namespace samsa::server::test {
namespace {

using protocol::sync_group_request;
using protocol::sync_group_response;

class sync_group_test : public group_test {};

sync_group_request sync_request(const std::string& group, const group_member& m) {
    sync_group_request req;
    req.group_id = group;
    req.generation_id = m.generation;
    req.member_id = m.member_id;
    req.protocol_type = "consumer";
    req.protocol_name = "range";
    return req;
}

TEST_F(sync_group_test, leader_assignment_comes_back) {
    const auto group = unique_name("sg-ok");
    auto first = join(broker(), join_request(group, ""));
    auto joined = join(broker(), join_request(group, first.member_id));
    ASSERT_ERROR(joined.error_code, error_code::none);
    auto req = sync_request(group, {joined.member_id, joined.generation_id});
    auto& a = req.assignments.emplace_back();
    a.member_id = joined.member_id;
    a.assignment = bytes{1, 2, 3};
    auto resp = broker().call<sync_group_response>(req, 5);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_EQ(resp.assignment, (bytes{1, 2, 3}));
    EXPECT_EQ(resp.protocol_name, "range");
}

TEST_F(sync_group_test, unknown_group_is_unknown_member_id) {
    auto resp = broker().call<sync_group_response>(
        sync_request(unique_name("sg-missing"), {"someone", 1}), 5);
    EXPECT_ERROR(resp.error_code, error_code::unknown_member_id);
}

TEST_F(sync_group_test, unknown_member_is_unknown_member_id) {
    const auto group = unique_name("sg-unknown");
    auto m = join_stable(broker(), group);
    auto resp =
        broker().call<sync_group_response>(sync_request(group, {"not-a-member", m.generation}), 5);
    EXPECT_ERROR(resp.error_code, error_code::unknown_member_id);
}

TEST_F(sync_group_test, stale_generation_is_illegal_generation) {
    const auto group = unique_name("sg-generation");
    auto m = join_stable(broker(), group);
    auto resp =
        broker().call<sync_group_response>(sync_request(group, {m.member_id, m.generation + 5}), 5);
    EXPECT_ERROR(resp.error_code, error_code::illegal_generation);
}

TEST_F(sync_group_test, empty_group_id_is_invalid_group_id) {
    auto resp = broker().call<sync_group_response>(sync_request("", {"m", 1}), 5);
    EXPECT_ERROR(resp.error_code, error_code::invalid_group_id);
}

TEST_F(sync_group_test, other_protocol_type_is_inconsistent_group_protocol) {
    const auto group = unique_name("sg-type");
    auto m = join_stable(broker(), group);
    auto req = sync_request(group, m);
    req.protocol_type = "connect";
    EXPECT_ERROR(broker().call<sync_group_response>(req, 5).error_code,
                 error_code::inconsistent_group_protocol);
}

TEST_F(sync_group_test, other_protocol_name_is_inconsistent_group_protocol) {
    const auto group = unique_name("sg-name");
    auto m = join_stable(broker(), group);
    auto req = sync_request(group, m);
    req.protocol_name = "roundrobin";
    EXPECT_ERROR(broker().call<sync_group_response>(req, 5).error_code,
                 error_code::inconsistent_group_protocol);
}

}  // namespace
}  // namespace samsa::server::test
