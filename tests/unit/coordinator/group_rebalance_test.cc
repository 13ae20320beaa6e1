// The classic rebalance protocol through group_manager: joins, syncs,
// heartbeats, leaves, timeouts, static membership.
#include <gtest/gtest.h>

#include "coordinator/group_manager_fixture.h"

namespace samsa::coordinator::testing {
namespace {

class group_rebalance_test : public group_manager_fixture {
  protected:
    // Two members m1 (leader) and m2 in a Stable group; returns their ids.
    std::pair<std::string, std::string> stable_group_of_two(const std::string& group) {
        const std::string m1 = stable_group_of_one(group);
        auto j2 = join(group, "");
        EXPECT_FALSE(j2->has_value());
        auto j1 = join(group, m1);
        EXPECT_TRUE(j1->has_value() && j2->has_value());
        const int32_t gen = j1->value().generation_id;
        const std::string m2 = j2->value().member_id;
        auto s2 = sync(group, m2, gen);
        auto s1 = sync(group, m1, gen, {{m1, bytes{1}}, {m2, bytes{2}}});
        EXPECT_TRUE(s1->has_value() && s2->has_value());
        EXPECT_EQ(state(group), group_state::stable);
        return {m1, m2};
    }
};

TEST_F(group_rebalance_test, first_join_requires_a_member_id_then_completes_the_first_generation) {
    auto first = join("g", "", 4);
    ASSERT_TRUE(first->has_value());
    EXPECT_EQ(first->value().error, error_code::member_id_required);
    const std::string id = first->value().member_id;
    EXPECT_EQ(id.rfind("client-", 0), 0u);
    EXPECT_EQ(id.size(), std::string("client-").size() + 36);  // a java.util.UUID string

    auto j = join("g", id, 4);
    EXPECT_FALSE(j->has_value());  // the initial delay (0 ms) passes on the next tick
    advance(1);
    ASSERT_TRUE(j->has_value());
    const auto& r = j->value();
    EXPECT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.generation_id, 1);
    EXPECT_EQ(r.leader, id);
    EXPECT_EQ(r.protocol_name, "range");
    ASSERT_EQ(r.members.size(), 1u);
    EXPECT_EQ(state("g"), group_state::completing_rebalance);

    const int64_t log_end_before = partition->log()->log_end_offset();
    auto s = sync("g", id, 1, {{id, bytes{7, 7}}});
    ASSERT_TRUE(s->has_value());
    EXPECT_EQ(s->value().error, error_code::none);
    EXPECT_EQ(s->value().assignment, (bytes{7, 7}));
    EXPECT_EQ(state("g"), group_state::stable);
    // The assignment was stored before the answer.
    EXPECT_EQ(partition->log()->log_end_offset(), log_end_before + 1);
}

TEST_F(group_rebalance_test, initial_delay_gathers_members_that_join_together) {
    config.initial_rebalance_delay_ms = 100;
    start_manager();
    auto a = join("g", "");
    advance(50);
    auto b = join("g", "");
    advance(60);  // the first delay ended; b arrived during it: wait again
    EXPECT_FALSE(a->has_value());
    advance(100);
    ASSERT_TRUE(a->has_value() && b->has_value());
    EXPECT_EQ(a->value().generation_id, 1);
    EXPECT_EQ(b->value().generation_id, 1);
}

TEST_F(group_rebalance_test, a_new_member_rebalances_the_group_and_others_learn_by_heartbeat) {
    const std::string m1 = stable_group_of_one("g");
    auto j2 = join("g", "");
    EXPECT_FALSE(j2->has_value());
    EXPECT_EQ(state("g"), group_state::preparing_rebalance);
    EXPECT_EQ(heartbeat("g", m1, 1), error_code::rebalance_in_progress);
    auto j1 = join("g", m1);
    ASSERT_TRUE(j1->has_value() && j2->has_value());
    EXPECT_EQ(j1->value().generation_id, 2);
    EXPECT_EQ(j1->value().leader, m1);
    EXPECT_EQ(j1->value().members.size(), 2u);
    EXPECT_TRUE(j2->value().members.empty());
    const std::string m2 = j2->value().member_id;

    auto s2 = sync("g", m2, 2);
    EXPECT_FALSE(s2->has_value());  // waits for the leader
    auto s1 = sync("g", m1, 2, {{m1, bytes{1}}, {m2, bytes{2}}});
    ASSERT_TRUE(s1->has_value() && s2->has_value());
    EXPECT_EQ(s1->value().assignment, bytes{1});
    EXPECT_EQ(s2->value().assignment, bytes{2});
    EXPECT_EQ(heartbeat("g", m1, 2), error_code::none);
    EXPECT_EQ(heartbeat("g", m1, 1), error_code::illegal_generation);
    EXPECT_EQ(heartbeat("g", "nobody", 2), error_code::unknown_member_id);
}

TEST_F(group_rebalance_test, a_member_without_heartbeats_is_removed_after_its_session_timeout) {
    auto [m1, m2] = stable_group_of_two("g");
    advance(600);
    EXPECT_EQ(heartbeat("g", m1, 2), error_code::none);
    advance(600);  // m2's session (1000 ms) ran out; m1 heartbeated at 600
    EXPECT_FALSE(manager->groups().group("g")->has(m2));
    EXPECT_EQ(heartbeat("g", m1, 2), error_code::rebalance_in_progress);
    auto j1 = join("g", m1);
    ASSERT_TRUE(j1->has_value());  // every remaining member rejoined: no wait
    EXPECT_EQ(j1->value().generation_id, 3);
    EXPECT_EQ(j1->value().members.size(), 1u);
    EXPECT_EQ(heartbeat("g", m2, 3), error_code::unknown_member_id);
}

TEST_F(group_rebalance_test, members_that_do_not_rejoin_in_the_rebalance_timeout_are_dropped) {
    auto [m1, m2] = stable_group_of_two("g");
    auto j3 = join("g", "");
    auto j1 = join("g", m1);
    EXPECT_FALSE(j1->has_value());
    // m2 keeps its session alive but never rejoins.
    for (int i = 0; i < 4; ++i) {
        advance(500);
        heartbeat("g", m2, 2);
    }
    advance(1);
    ASSERT_TRUE(j1->has_value() && j3->has_value());
    EXPECT_EQ(j1->value().generation_id, 3);
    EXPECT_EQ(j1->value().members.size(), 2u);
    EXPECT_FALSE(manager->groups().group("g")->has(m2));
}

TEST_F(group_rebalance_test, a_member_that_never_syncs_is_removed_after_the_rebalance_timeout) {
    auto [m1, m2] = stable_group_of_two("g");
    auto j1 = join("g", m1);  // the leader rejoins: a rebalance
    auto j2 = join("g", m2);
    ASSERT_TRUE(j1->has_value() && j2->has_value());
    auto s1 = sync("g", m1, 3, {{m1, bytes{1}}, {m2, bytes{2}}});
    ASSERT_TRUE(s1->has_value());
    // m2 keeps heartbeating but never sends SyncGroup.
    for (int i = 0; i < 4; ++i) {
        advance(500);
        heartbeat("g", m2, 3);
        heartbeat("g", m1, 3);
    }
    advance(10);
    EXPECT_FALSE(manager->groups().group("g")->has(m2));
    EXPECT_EQ(state("g"), group_state::preparing_rebalance);
}

TEST_F(group_rebalance_test, sync_errors_follow_kafka) {
    auto [m1, m2] = stable_group_of_two("g");
    EXPECT_EQ(sync("g", "nobody", 2)->value().error, error_code::unknown_member_id);
    EXPECT_EQ(sync("g", m1, 1)->value().error, error_code::illegal_generation);
    EXPECT_EQ(sync("nogroup", m1, 1)->value().error, error_code::unknown_member_id);
    // A Stable group answers a late SyncGroup with the member's assignment.
    auto s = sync("g", m2, 2);
    ASSERT_TRUE(s->has_value());
    EXPECT_EQ(s->value().assignment, bytes{2});
    join("g", "");  // now PreparingRebalance
    EXPECT_EQ(sync("g", m1, 2)->value().error, error_code::rebalance_in_progress);
}

TEST_F(group_rebalance_test, a_rejoin_during_completing_rebalance_tells_waiting_syncs_to_rejoin) {
    auto [m1, m2] = stable_group_of_two("g");
    auto j1 = join("g", m1);
    auto j2 = join("g", m2);
    ASSERT_TRUE(j1->has_value() && j2->has_value());
    auto s2 = sync("g", m2, 3);
    EXPECT_FALSE(s2->has_value());
    // m2 changes its protocols: a new rebalance; its pending sync is told so.
    auto again = join("g", m2, 3, std::nullopt, {"range", "roundrobin"});
    ASSERT_TRUE(s2->has_value());
    EXPECT_EQ(s2->value().error, error_code::rebalance_in_progress);
    EXPECT_EQ(state("g"), group_state::preparing_rebalance);
}

TEST_F(group_rebalance_test, protocol_mismatch_and_session_timeout_bounds_are_rejected) {
    stable_group_of_one("g");
    auto bad = join("g", "", 3, std::nullopt, {"roundrobin"});
    EXPECT_EQ(bad->value().error, error_code::inconsistent_group_protocol);
    auto too_short = join("g", "", 3, std::nullopt, {"range"}, /*session=*/5);
    EXPECT_EQ(too_short->value().error, error_code::invalid_session_timeout);
    auto unknown = join("other", "made-up-id");
    EXPECT_EQ(unknown->value().error, error_code::unknown_member_id);
    auto no_id = join("", "");
    EXPECT_EQ(no_id->value().error, error_code::invalid_group_id);
}

TEST_F(group_rebalance_test, group_max_size_refuses_extra_members) {
    config.max_size = 1;
    start_manager();
    stable_group_of_one("g");
    auto extra = join("g", "");
    ASSERT_TRUE(extra->has_value());
    EXPECT_EQ(extra->value().error, error_code::group_max_size_reached);
    EXPECT_EQ(manager->groups().group("g")->size(), 1u);
}

TEST_F(group_rebalance_test, a_pending_member_id_expires_with_its_session) {
    auto first = join("g", "", 4);
    const std::string id = first->value().member_id;
    advance(1001);
    auto late = join("g", id, 4);
    ASSERT_TRUE(late->has_value());
    EXPECT_EQ(late->value().error, error_code::unknown_member_id);
}

TEST_F(group_rebalance_test, leaving_rebalances_and_the_last_member_empties_the_group) {
    auto [m1, m2] = stable_group_of_two("g");
    EXPECT_EQ(leave("g", m2), error_code::none);
    EXPECT_EQ(state("g"), group_state::preparing_rebalance);
    auto j1 = join("g", m1);
    ASSERT_TRUE(j1->has_value());
    EXPECT_EQ(j1->value().members.size(), 1u);
    sync("g", m1, j1->value().generation_id, {{m1, bytes{}}});
    EXPECT_EQ(leave("g", m1), error_code::none);
    EXPECT_EQ(state("g"), group_state::empty);
    EXPECT_EQ(leave("g", m1), error_code::unknown_member_id);
    EXPECT_EQ(leave("nogroup", "x"), error_code::unknown_member_id);
}

TEST_F(group_rebalance_test, batched_leave_answers_each_member) {
    auto [m1, m2] = stable_group_of_two("g");
    std::vector<leaving_member> ms(3);
    ms[0].member_id = m1;
    ms[1].member_id = "unknown";
    ms[2].member_id = m2;
    auto r = manager->groups().leave_group("g", ms);
    EXPECT_EQ(r.error, error_code::none);
    ASSERT_EQ(r.members.size(), 3u);
    EXPECT_EQ(r.members[0].error, error_code::none);
    EXPECT_EQ(r.members[1].error, error_code::unknown_member_id);
    EXPECT_EQ(r.members[2].error, error_code::none);
    EXPECT_EQ(state("g"), group_state::empty);
}

TEST_F(group_rebalance_test, a_restarted_static_member_gets_its_assignment_back_without_rebalance) {
    const std::string old_id = stable_group_of_one("g", std::string("instance-a"));
    EXPECT_EQ(old_id.rfind("instance-a-", 0), 0u);
    const int32_t gen = generation("g");
    // The restarted process has no member id, only its instance id.
    auto j = join("g", "", 5, std::string("instance-a"));
    ASSERT_TRUE(j->has_value());
    EXPECT_EQ(j->value().error, error_code::none);
    EXPECT_EQ(j->value().generation_id, gen);
    EXPECT_NE(j->value().member_id, old_id);
    // Pre-KIP-814 clients are told the old leader id, so they do not reassign.
    EXPECT_EQ(j->value().leader, old_id);
    EXPECT_EQ(state("g"), group_state::stable);
    const std::string new_id = j->value().member_id;
    auto s = sync("g", new_id, gen, {}, std::string("instance-a"));
    EXPECT_EQ(s->value().assignment, bytes{1});
    // The old process is fenced.
    EXPECT_EQ(heartbeat("g", old_id, gen, std::string("instance-a")),
              error_code::fenced_instance_id);
    auto stale = join("g", old_id, 5, std::string("instance-a"));
    EXPECT_EQ(stale->value().error, error_code::fenced_instance_id);
    EXPECT_EQ(heartbeat("g", new_id, gen, std::string("instance-a")), error_code::none);
}

TEST_F(group_rebalance_test, a_static_leader_rejoining_with_v9_is_told_to_skip_assignment) {
    stable_group_of_one("g", std::string("instance-a"));
    auto j = join("g", "", 9, std::string("instance-a"));
    ASSERT_TRUE(j->has_value());
    EXPECT_TRUE(j->value().skip_assignment);
    EXPECT_EQ(j->value().leader, j->value().member_id);
    EXPECT_EQ(j->value().members.size(), 1u);
}

TEST_F(group_rebalance_test, a_static_member_keeps_its_place_while_others_rebalance) {
    const std::string s1 = stable_group_of_one("g", std::string("instance-a"));
    auto j2 = join("g", "");  // a dynamic member arrives
    // The static member heartbeats but does not rejoin before the rebalance
    // timeout: it is not removed (KIP-345), and the new member leads the
    // next generation.
    for (int i = 0; i < 4; ++i) {
        advance(500);
        heartbeat("g", s1, 1, std::string("instance-a"));
    }
    advance(1);
    ASSERT_TRUE(j2->has_value());
    EXPECT_EQ(j2->value().error, error_code::none);
    EXPECT_TRUE(manager->groups().group("g")->has(s1));
    EXPECT_EQ(j2->value().members.size(), 2u);
}

TEST_F(group_rebalance_test, losing_the_partition_answers_waiting_members_not_coordinator) {
    const std::string m1 = stable_group_of_one("g");
    auto j2 = join("g", "");
    EXPECT_FALSE(j2->has_value());
    manager->on_resigned(0);
    ASSERT_TRUE(j2->has_value());
    EXPECT_EQ(j2->value().error, error_code::not_coordinator);
    EXPECT_EQ(heartbeat("g", m1, 1), error_code::not_coordinator);
    EXPECT_EQ(manager->coordinator_status("g"), error_code::not_coordinator);
}

// The assignment is answered only once the offsets partition's ISR holds it;
// an ISR that does not catch up within offsets.commit.timeout.ms fails the
// sync with COORDINATOR_NOT_AVAILABLE and the group rebalances.
TEST_F(group_rebalance_test, an_assignment_the_isr_does_not_replicate_in_time_fails_the_sync) {
    metadata::partition_registration reg;
    reg.partition = 0;
    reg.leader = node_id{1};
    reg.leader_epoch = 0;
    reg.replicas = to_node_ids({1, 2});
    reg.isr = to_node_ids({1, 2});  // replica 2 never fetches
    partition->update_registration(reg);
    config.offset_commit_timeout_ms = 500;
    start_manager();

    auto first = join("g", "", 5);
    auto j = join("g", first->value().member_id, 5);
    advance(1);
    ASSERT_TRUE(j->has_value());
    const auto& r = j->value();
    auto s = sync("g", r.member_id, r.generation_id, {{r.member_id, bytes{1}}});
    advance(499);
    EXPECT_FALSE(s->has_value());
    EXPECT_EQ(state("g"), group_state::completing_rebalance);
    advance(2);
    ASSERT_TRUE(s->has_value());
    EXPECT_EQ(s->value().error, error_code::coordinator_not_available);
    EXPECT_EQ(state("g"), group_state::preparing_rebalance);
}

}  // namespace
}  // namespace samsa::coordinator::testing
