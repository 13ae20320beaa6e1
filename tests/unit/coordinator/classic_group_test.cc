#include "coordinator/group/classic_group.h"

#include <gtest/gtest.h>

#include <memory>

namespace samsa::coordinator {
namespace {

bytes md(const std::string& s) {
    return bytes(s.begin(), s.end());
}

std::unique_ptr<group_member> member(const std::string& id, std::vector<member_protocol> protocols,
                                     std::optional<std::string> instance = std::nullopt) {
    return std::make_unique<group_member>(id, std::move(instance), "client", "/127.0.0.1", 30000,
                                          10000, "consumer", std::move(protocols));
}

TEST(classic_group, first_member_leads_and_sets_the_protocol_type) {
    classic_group g("g", group_state::empty, 0);
    g.add(member("m1", {{"range", md("a")}}));
    g.add(member("m2", {{"range", md("b")}}));
    EXPECT_EQ(g.leader_id(), "m1");
    EXPECT_EQ(g.protocol_type(), "consumer");
    g.remove("m1");
    EXPECT_EQ(g.leader_id(), "m2");
    g.remove("m2");
    EXPECT_EQ(g.leader_id(), std::nullopt);
}

TEST(classic_group, protocol_selection_takes_the_common_protocol_with_most_votes) {
    // Seed inventory GRP-07: candidates are the protocols all support; each
    // member votes for its first candidate.
    classic_group g("g", group_state::empty, 0);
    g.add(member("m1", {{"roundrobin", {}}, {"range", {}}, {"sticky", {}}}));
    g.add(member("m2", {{"range", {}}, {"roundrobin", {}}}));
    g.add(member("m3", {{"range", {}}, {"sticky", {}}, {"roundrobin", {}}}));
    EXPECT_EQ(g.select_protocol(), "range");
    // "sticky" is not supported by m2: never a candidate.
    EXPECT_TRUE(g.supports_protocols("consumer", {"roundrobin"}));
    EXPECT_FALSE(g.supports_protocols("consumer", {"sticky"}));
    EXPECT_FALSE(g.supports_protocols("connect", {"range"}));
}

TEST(classic_group, protocol_ties_go_to_the_leaders_preference) {
    classic_group g("g", group_state::empty, 0);
    g.add(member("m1", {{"roundrobin", {}}, {"range", {}}}));
    g.add(member("m2", {{"range", {}}, {"roundrobin", {}}}));
    EXPECT_EQ(g.select_protocol(), "roundrobin");
}

TEST(classic_group, an_empty_group_accepts_any_non_empty_protocol_list) {
    classic_group g("g", group_state::empty, 0);
    EXPECT_TRUE(g.supports_protocols("consumer", {"range"}));
    EXPECT_FALSE(g.supports_protocols("consumer", {}));
    EXPECT_FALSE(g.supports_protocols("", {"range"}));
}

TEST(classic_group, join_phase_counts_rejoined_members_and_pending_ids) {
    classic_group g("g", group_state::empty, 0);
    int answered = 0;
    g.add(member("m1", {{"range", {}}}), [&](join_group_result) { ++answered; });
    g.add(member("m2", {{"range", {}}}));
    EXPECT_EQ(g.num_awaiting_join(), 1u);
    EXPECT_FALSE(g.has_all_members_joined());
    EXPECT_EQ(g.not_yet_rejoined_members(), std::vector<std::string>{"m2"});
    g.get("m2")->await_join([&](join_group_result) { ++answered; });
    EXPECT_TRUE(g.has_all_members_joined());
    g.add_pending_member("m3");
    EXPECT_FALSE(g.has_all_members_joined());
    g.remove_pending_member("m3");
    EXPECT_TRUE(g.has_all_members_joined());
    // Removing a member answers what it waited for.
    g.remove("m2");
    EXPECT_EQ(answered, 1);
}

TEST(classic_group, a_leader_that_did_not_rejoin_is_replaced_by_one_that_did) {
    classic_group g("g", group_state::empty, 0);
    g.add(member("m1", {{"range", {}}}));
    g.add(member("m2", {{"range", {}}}), [](join_group_result) {});
    EXPECT_TRUE(g.maybe_elect_new_joined_leader());
    EXPECT_EQ(g.leader_id(), "m2");
}

TEST(classic_group, next_generation_sends_the_leader_every_members_metadata) {
    classic_group g("g", group_state::empty, 0);
    g.transition_to(group_state::preparing_rebalance, 1);
    g.add(member("m1", {{"range", md("s1")}}));
    g.add(member("m2", {{"range", md("s2")}}));
    g.init_next_generation(2);
    EXPECT_TRUE(g.is(group_state::completing_rebalance));
    EXPECT_EQ(g.generation_id(), 1);
    EXPECT_EQ(g.protocol_name(), "range");
    auto leader = g.join_response("m1");
    EXPECT_EQ(leader.leader, "m1");
    ASSERT_EQ(leader.members.size(), 2u);
    EXPECT_EQ(leader.members[1].member_id, "m2");
    EXPECT_EQ(leader.members[1].metadata, md("s2"));
    EXPECT_TRUE(g.join_response("m2").members.empty());
}

TEST(classic_group, replacing_a_static_member_fences_the_old_instance) {
    classic_group g("g", group_state::empty, 0);
    std::optional<error_code> old_answer;
    g.add(member("old", {{"range", {}}}, "instance-1"),
          [&](join_group_result r) { old_answer = r.error; });
    EXPECT_EQ(g.static_member_id("instance-1"), "old");
    auto* m = g.replace_static_member("instance-1", "old", "new");
    EXPECT_EQ(m->member_id(), "new");
    EXPECT_EQ(old_answer, error_code::fenced_instance_id);
    EXPECT_TRUE(g.has("new"));
    EXPECT_FALSE(g.has("old"));
    EXPECT_EQ(g.leader_id(), "new");
    EXPECT_TRUE(g.is_static_member_fenced(std::string("instance-1"), "old"));
    EXPECT_FALSE(g.is_static_member_fenced(std::string("instance-1"), "new"));
    EXPECT_FALSE(g.is_static_member_fenced(std::nullopt, "old"));
}

TEST(classic_group, subscribed_topics_come_from_consumer_subscriptions) {
    // ConsumerProtocolSubscription v0: int16 version, [topics], user_data.
    auto sub = [](std::vector<std::string> topics) {
        bytes b = {0, 0, 0, 0, 0, uint8_t(topics.size())};
        for (const auto& t : topics) {
            b.push_back(0);
            b.push_back(uint8_t(t.size()));
            b.insert(b.end(), t.begin(), t.end());
        }
        b.insert(b.end(), {0xff, 0xff, 0xff, 0xff});  // null user data
        return b;
    };
    classic_group g("g", group_state::empty, 0);
    g.transition_to(group_state::preparing_rebalance, 1);
    g.add(member("m1", {{"range", sub({"a", "b"})}}));
    g.add(member("m2", {{"range", sub({"c"})}}));
    g.init_next_generation(2);
    ASSERT_TRUE(g.subscribed_topics());
    EXPECT_EQ(*g.subscribed_topics(), (std::set<std::string>{"a", "b", "c"}));
    EXPECT_TRUE(g.is_subscribed_to_topic("c"));
    EXPECT_FALSE(g.is_subscribed_to_topic("d"));
}

TEST(classic_group, empty_group_offsets_expire_counting_from_when_it_emptied) {
    classic_group g("g", group_state::empty, 0);
    g.restore(3, std::string("consumer"), std::nullopt, std::nullopt, int64_t(1000));
    g.offsets().put({"t", 0}, {10, -1, "", 500, std::nullopt});
    g.offsets().put({"t", 1}, {11, -1, "", 500, int64_t(1200)});  // explicit expiry
    EXPECT_EQ(g.expire_offsets(1100, 1000).size(), 0u);
    EXPECT_EQ(g.expire_offsets(1200, 1000).size(), 1u);  // t-1 at its expire timestamp
    EXPECT_EQ(g.expire_offsets(1999, 1000).size(), 0u);
    auto gone = g.expire_offsets(2000, 1000);  // emptied at 1000 + 1000 retention
    ASSERT_EQ(gone.size(), 1u);
    EXPECT_EQ(gone[0], (storage::topic_partition{"t", 0}));
}

TEST(classic_group, simple_group_offsets_expire_by_commit_time) {
    classic_group g("g", group_state::empty, 0);
    g.offsets().put({"t", 0}, {1, -1, "", 100, std::nullopt});
    g.offsets().put({"t", 1}, {1, -1, "", 900, std::nullopt});
    EXPECT_EQ(g.expire_offsets(1100, 1000).size(), 1u);
    EXPECT_EQ(g.offsets().size(), 1u);
}

TEST(classic_group, a_non_empty_group_keeps_offsets_of_unknown_subscriptions) {
    classic_group g("g", group_state::empty, 0);
    g.transition_to(group_state::preparing_rebalance, 0);
    g.add(member("m1", {{"range", md("not a subscription")}}));
    g.init_next_generation(0);
    g.transition_to(group_state::stable, 0);
    g.offsets().put({"t", 0}, {1, -1, "", 0, std::nullopt});
    EXPECT_FALSE(g.subscribed_topics());
    EXPECT_TRUE(g.expire_offsets(1'000'000, 1).empty());
}

}  // namespace
}  // namespace samsa::coordinator
