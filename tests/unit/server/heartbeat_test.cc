// Heartbeat (key 12) against the in-process broker: a stable member's
// heartbeat is answered NONE; unknown groups and members, stale generations,
// empty group ids, and a rebalance under way get Kafka's error codes.
#include <gtest/gtest.h>

#include <thread>

#include "group_support.h"
#include "protocol/generated/heartbeat_request.h"
#include "protocol/generated/heartbeat_response.h"

namespace samsa::server::test {
namespace {

using protocol::heartbeat_request;
using protocol::heartbeat_response;

class heartbeat_test : public group_test {
  protected:
    int16_t beat(const std::string& group, const group_member& m) {
        heartbeat_request req;
        req.group_id = group;
        req.generation_id = m.generation;
        req.member_id = m.member_id;
        return broker().call<heartbeat_response>(req, 4).error_code;
    }
};

TEST_F(heartbeat_test, stable_member_is_none) {
    const auto group = unique_name("hb-ok");
    auto m = join_stable(broker(), group);
    EXPECT_ERROR(beat(group, m), error_code::none);
}

TEST_F(heartbeat_test, unknown_group_is_unknown_member_id) {
    join_stable(broker(), unique_name("hb-warm"));  // the coordinator is loaded
    EXPECT_ERROR(beat(unique_name("hb-missing"), {"someone", 1}), error_code::unknown_member_id);
}

TEST_F(heartbeat_test, unknown_member_is_unknown_member_id) {
    const auto group = unique_name("hb-unknown");
    auto m = join_stable(broker(), group);
    EXPECT_ERROR(beat(group, {"not-a-member", m.generation}), error_code::unknown_member_id);
}

TEST_F(heartbeat_test, stale_generation_is_illegal_generation) {
    const auto group = unique_name("hb-generation");
    auto m = join_stable(broker(), group);
    EXPECT_ERROR(beat(group, {m.member_id, m.generation - 1}), error_code::illegal_generation);
}

TEST_F(heartbeat_test, empty_group_id_is_invalid_group_id) {
    EXPECT_ERROR(beat("", {"m", 1}), error_code::invalid_group_id);
}

TEST_F(heartbeat_test, rebalance_under_way_is_rebalance_in_progress) {
    const auto group = unique_name("hb-rebalance");
    auto a = join_stable(broker(), group);
    ASSERT_FALSE(a.member_id.empty());
    // A second member's join starts a rebalance; its JoinGroup is parked
    // until the first member rejoins.
    auto second = join(broker(), join_request(group, ""));
    ASSERT_ERROR(second.error_code, error_code::member_id_required);
    protocol::join_group_response b_joined;
    std::thread b([&] {
        b_joined =
            broker().call<protocol::join_group_response>(join_request(group, second.member_id), 5);
    });
    bool rebalancing = broker_fixture::wait_until(
        [&] { return beat(group, a) == int16_t(error_code::rebalance_in_progress); });
    EXPECT_TRUE(rebalancing);
    // The first member rejoins; both joins complete in a new generation.
    auto a_joined = join(broker(), join_request(group, a.member_id));
    b.join();
    EXPECT_ERROR(a_joined.error_code, error_code::none);
    EXPECT_ERROR(b_joined.error_code, error_code::none);
    EXPECT_GT(a_joined.generation_id, a.generation);
    EXPECT_EQ(a_joined.generation_id, b_joined.generation_id);
}

}  // namespace
}  // namespace samsa::server::test
