// Consumer groups (KIP-848) in the group coordinator: heartbeats, epochs,
// revocation before assignment, leaving, fencing, static members, records
// that survive a reload, offsets with member epochs, and the group's own
// session timeout and heartbeat interval.
#include <gtest/gtest.h>

#include "coordinator/group_manager_fixture.h"

namespace samsa::coordinator::testing {
namespace {

class consumer_group_test : public group_manager_fixture {
  protected:
    void SetUp() override {
        config.consumer_session_timeout_ms = 45000;
        config.consumer_heartbeat_interval_ms = 5000;
        group_manager_fixture::SetUp();
        add_topic("t", 12);
    }

    consumer_group_heartbeat_result join(const std::string& member,
                                         std::vector<std::string> topics = {"t"},
                                         std::optional<std::string> instance = std::nullopt) {
        consumer_group_heartbeat_params p;
        p.group_id = "g";
        p.member_id = member;
        p.member_epoch = 0;
        p.instance_id = std::move(instance);
        p.rebalance_timeout_ms = 30000;
        p.subscribed_topic_names = std::move(topics);
        p.owned = topic_assignment{};
        return manager->consumers().heartbeat(p, {"client", "/127.0.0.1", 1}, image);
    }

    consumer_group_heartbeat_result beat(const std::string& member, int32_t epoch,
                                         std::optional<topic_assignment> owned = std::nullopt) {
        consumer_group_heartbeat_params p;
        p.group_id = "g";
        p.member_id = member;
        p.member_epoch = epoch;
        p.owned = std::move(owned);
        return manager->consumers().heartbeat(p, {"client", "/127.0.0.1", 1}, image);
    }
};

TEST_F(consumer_group_test, first_member_gets_everything_at_epoch_one) {
    auto r = join("m1");
    ASSERT_EQ(r.error, error_code::none) << r.error_message.value_or("");
    EXPECT_EQ(r.member_id, "m1");
    EXPECT_EQ(r.member_epoch, 1);
    EXPECT_EQ(r.heartbeat_interval_ms, 5000);
    ASSERT_TRUE(r.assignment);
    EXPECT_EQ(assignment_size(*r.assignment), 12u);
    auto g = manager->consumers().group("g");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->state(), consumer_group_state::stable);
    // A heartbeat with nothing new carries no assignment.
    auto again = beat("m1", 1);
    EXPECT_EQ(again.error, error_code::none);
    EXPECT_FALSE(again.assignment);
}

TEST_F(consumer_group_test, a_second_member_waits_until_the_first_revokes) {
    auto r1 = join("m1");
    auto r2 = join("m2");
    ASSERT_EQ(r2.error, error_code::none);
    EXPECT_EQ(r2.member_epoch, 2);
    // Everything m2 is to get is still m1's: it asks again soon.
    EXPECT_TRUE(r2.assignment && r2.assignment->empty());
    EXPECT_EQ(r2.heartbeat_interval_ms, 500);
    EXPECT_EQ(manager->consumers().group("g")->state(), consumer_group_state::reconciling);
    // m1 learns it must give six up; its epoch stays until it does.
    auto b1 = beat("m1", 1);
    EXPECT_EQ(b1.member_epoch, 1);
    ASSERT_TRUE(b1.assignment);
    EXPECT_EQ(assignment_size(*b1.assignment), 6u);
    // OffsetCommit from the revoke callback, at the epoch it still has.
    EXPECT_EQ(commit("g", 1, "m1", "t", 0, 10), error_code::none);
    EXPECT_EQ(commit("g", 2, "m1", "t", 0, 10), error_code::stale_member_epoch);
    // Before v9 the field is a generation: this protocol's members may not.
    EXPECT_EQ(commit("g", 1, "m1", "t", 0, 10, "", 8), error_code::unsupported_version);
    // It reports the six gone: epoch 2, and m2 gets them.
    auto b1b = beat("m1", 1, *b1.assignment);
    EXPECT_EQ(b1b.member_epoch, 2);
    auto b2 = beat("m2", 2);
    ASSERT_TRUE(b2.assignment);
    EXPECT_EQ(assignment_size(*b2.assignment), 6u);
    EXPECT_EQ(b2.heartbeat_interval_ms, 5000);
    EXPECT_TRUE(assignment_empty(assignment_intersection(*b2.assignment, *b1.assignment)));
    EXPECT_EQ(manager->consumers().group("g")->state(), consumer_group_state::stable);
}

// KIP-1251: a commit at an epoch older than the member's is taken for the
// partitions the member had at that epoch (its heartbeat response may not
// have reached it), and refused for the others.
TEST_F(consumer_group_test, a_commit_at_an_older_epoch_is_taken_for_partitions_held_then) {
    join("m1");
    join("m2");
    auto b1 = beat("m1", 1);
    ASSERT_TRUE(b1.assignment);
    const uuid t = id_of("t");
    const std::set<int32_t> kept = b1.assignment->at(t);
    int32_t given_away = -1;
    for (int32_t p = 0; p < 12 && given_away < 0; ++p) {
        given_away = kept.count(p) ? -1 : p;
    }
    const int32_t kept_one = *kept.begin();
    ASSERT_EQ(beat("m1", 1, *b1.assignment).member_epoch, 2);
    // m1 is at 2; a commit it sent at 1 counts for what it still has.
    EXPECT_EQ(commit("g", 1, "m1", "t", kept_one, 5), error_code::none);
    EXPECT_EQ(committed("g", "t", kept_one), 5);
    EXPECT_EQ(commit("g", 1, "m1", "t", given_away, 5), error_code::stale_member_epoch);
    EXPECT_EQ(commit("g", 3, "m1", "t", kept_one, 6), error_code::stale_member_epoch);
    EXPECT_EQ(commit("g", -1, "m1", "t", kept_one, 6), error_code::stale_member_epoch);
    // m2 leaves: m1 gets everything at 3. The six it got back at 3 take no
    // commit from 2; the six it kept since 1 do.
    beat("m2", 2);
    beat("m2", -1);
    auto all = beat("m1", 2);
    ASSERT_EQ(all.member_epoch, 3);
    EXPECT_EQ(commit("g", 2, "m1", "t", kept_one, 7), error_code::none);
    EXPECT_EQ(commit("g", 2, "m1", "t", given_away, 7), error_code::stale_member_epoch);
    EXPECT_EQ(commit("g", 3, "m1", "t", given_away, 7), error_code::none);
    // The epochs are in the records: a new coordinator judges alike.
    const auto epochs = manager->consumers().group("g")->get("m1")->assignment_epochs;
    EXPECT_EQ(epochs.size(), 12u);
    start_manager();
    EXPECT_EQ(manager->consumers().group("g")->get("m1")->assignment_epochs, epochs);
    EXPECT_EQ(commit("g", 2, "m1", "t", kept_one, 8), error_code::none);
    EXPECT_EQ(commit("g", 2, "m1", "t", given_away, 8), error_code::stale_member_epoch);
    // TxnOffsetCommit has no STALE_MEMBER_EPOCH: ILLEGAL_GENERATION.
    auto txn =
        manager->consumers().group("g")->validate_offset_commit("m1", std::nullopt, 2, true, 3);
    EXPECT_EQ(txn.error, error_code::none);
    EXPECT_EQ(txn.check(t, kept_one), error_code::none);
    EXPECT_EQ(txn.check(t, given_away), error_code::illegal_generation);
}

TEST_F(consumer_group_test, wrong_epochs_and_unknown_members_are_fenced) {
    join("m1");
    EXPECT_EQ(beat("m1", 7).error, error_code::fenced_member_epoch);
    EXPECT_EQ(beat("nobody", 1).error, error_code::unknown_member_id);
    consumer_group_heartbeat_params bad;
    bad.group_id = "g";
    bad.member_id = "m9";
    bad.member_epoch = 0;
    bad.rebalance_timeout_ms = 1000;
    bad.owned = topic_assignment{};
    auto r = manager->consumers().heartbeat(bad, {"client", "/127.0.0.1", 1}, image);
    EXPECT_EQ(r.error, error_code::invalid_request);
    EXPECT_EQ(r.error_message,
              "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
    bad.subscribed_topic_regex = "(";
    EXPECT_EQ(manager->consumers().heartbeat(bad, {"client", "/127.0.0.1", 1}, image).error,
              error_code::invalid_regular_expression);
    bad.subscribed_topic_regex = "t.*";
    bad.server_assignor = "sticky";
    EXPECT_EQ(manager->consumers().heartbeat(bad, {"client", "/127.0.0.1", 1}, image).error,
              error_code::unsupported_assignor);
}

TEST_F(consumer_group_test, leaving_and_session_timeouts_free_partitions) {
    join("m1");
    join("m2");
    auto b1 = beat("m1", 1);
    beat("m1", 1, *b1.assignment);
    beat("m2", 2);
    // m2 leaves: m1's next heartbeat gets all twelve at a new epoch.
    auto left = beat("m2", -1);
    EXPECT_EQ(left.error, error_code::none);
    EXPECT_EQ(left.member_epoch, -1);
    auto b = beat("m1", 2);
    EXPECT_EQ(b.member_epoch, 3);
    EXPECT_EQ(assignment_size(*b.assignment), 12u);
    // m1 stops heartbeating: fenced after its session.
    advance(45001);
    auto g = manager->consumers().group("g");
    EXPECT_EQ(g->size(), 0u);
    EXPECT_EQ(g->state(), consumer_group_state::empty);
    EXPECT_EQ(beat("m1", 3).error, error_code::unknown_member_id);
}

TEST_F(consumer_group_test, the_groups_own_configs_set_its_interval_and_session) {
    // KIP-848's group configs, as the metadata image carries them; a change
    // acts from the group's next heartbeat.
    image.group_configs["g"] = {{"consumer.session.timeout.ms", "50000"},
                                {"consumer.heartbeat.interval.ms", "6000"}};
    image.group_configs["other"] = {{"consumer.heartbeat.interval.ms", "9000"}};
    auto r = join("m1");
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.heartbeat_interval_ms, 6000);
    // The session is the group's: alive at the broker default's end...
    advance(45001);
    EXPECT_EQ(manager->consumers().group("g")->size(), 1u);
    // ...fenced at its own.
    advance(5000);
    EXPECT_EQ(manager->consumers().group("g")->size(), 0u);

    image.group_configs.erase("g");
    r = join("m2");
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.heartbeat_interval_ms, 5000);
    advance(45001);
    EXPECT_EQ(manager->consumers().group("g")->size(), 0u);
}

TEST_F(consumer_group_test, a_static_member_returning_gets_its_partitions_back) {
    join("a1", {"t"}, "inst-a");
    join("b1", {"t"}, "inst-b");
    auto ba = beat("a1", 1);
    beat("a1", 1, *ba.assignment);
    auto bb = beat("b1", 2);
    const topic_assignment mine = *bb.assignment;
    const int32_t epoch = manager->consumers().group("g")->group_epoch();
    // b leaves for now (-2), then a new instance under the same instance id.
    consumer_group_heartbeat_params leave;
    leave.group_id = "g";
    leave.member_id = "b1";
    leave.member_epoch = -2;
    leave.instance_id = "inst-b";
    EXPECT_EQ(manager->consumers().heartbeat(leave, {"c", "/h", 1}, image).member_epoch, -2);
    // While b is away, a second live instance of a is refused.
    EXPECT_EQ(join("a2", {"t"}, "inst-a").error, error_code::unreleased_instance_id);
    auto back = join("b2", {"t"}, "inst-b");
    ASSERT_EQ(back.error, error_code::none);
    EXPECT_EQ(*back.assignment, mine);
    EXPECT_EQ(manager->consumers().group("g")->group_epoch(), epoch);  // no rebalance
}

TEST_F(consumer_group_test, a_regex_subscription_picks_up_new_topics) {
    consumer_group_heartbeat_params p;
    p.group_id = "g";
    p.member_id = "m1";
    p.member_epoch = 0;
    p.rebalance_timeout_ms = 30000;
    p.subscribed_topic_regex = "re-.*";
    p.owned = topic_assignment{};
    auto r = manager->consumers().heartbeat(p, {"client", "/127.0.0.1", 1}, image);
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_TRUE(r.assignment->empty());
    add_topic("re-1", 3);
    add_topic("are-2", 3);  // a full match only
    auto b = beat("m1", r.member_epoch);
    ASSERT_TRUE(b.assignment);
    EXPECT_EQ(*b.assignment, (topic_assignment{{id_of("re-1"), {0, 1, 2}}}));
}

TEST_F(consumer_group_test, groups_survive_a_reload_of_their_partition) {
    join("m1");
    join("m2");
    auto b1 = beat("m1", 1);
    beat("m1", 1, *b1.assignment);
    auto b2 = beat("m2", 2);
    EXPECT_EQ(commit("g", 2, "m2", "t", 3, 42), error_code::none);
    start_manager();  // a new coordinator replays the partition
    auto g = manager->consumers().group("g");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->size(), 2u);
    EXPECT_EQ(g->get("m2")->assigned, *b2.assignment);
    EXPECT_EQ(g->get("m2")->member_epoch, 2);
    EXPECT_EQ(committed("g", "t", 3), 42);
    // The members go on at their epochs: the metadata, refreshed from the
    // image after the load, covers what the targets cover, so the group
    // epoch stays.
    auto after = beat("m2", 2);
    EXPECT_EQ(after.error, error_code::none);
    EXPECT_EQ(after.member_epoch, 2);
    EXPECT_EQ(beat("m1", 2).error, error_code::none);
    EXPECT_EQ(manager->consumers().group("g")->group_epoch(), 2);
}

TEST_F(consumer_group_test, partitions_added_while_unloaded_bump_the_epoch_after_a_reload) {
    join("m1");
    start_manager();
    // t grows from 12 to 16 partitions while no coordinator serves the group.
    auto grown = std::make_shared<metadata::topic_image>(*image.topic("t"));
    grown->partitions.resize(16);
    image.topics_by_name["t"] = grown;
    image.topics_by_id[grown->id] = grown;
    ++image.offset;
    auto r = beat("m1", 1);
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(manager->consumers().group("g")->group_epoch(), 2);
    EXPECT_EQ(r.member_epoch, 2);
    ASSERT_TRUE(r.assignment);
    EXPECT_EQ(assignment_size(*r.assignment), 16u);
}

TEST_F(consumer_group_test, groups_of_both_kinds_are_listed_and_told_apart) {
    join("m1");
    stable_group_of_one("classic");
    bool loading = false;
    list_groups_filter consumers;
    consumers.types = {group_type::consumer};
    auto listed = manager->groups().list_groups(consumers, loading);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].group_id, "g");
    EXPECT_EQ(listed[0].group_type, "consumer");
    EXPECT_EQ(listed[0].protocol_type, "consumer");
    EXPECT_EQ(listed[0].group_state, "Stable");
    // DescribeGroups is for classic groups; ConsumerGroupDescribe for ours.
    EXPECT_EQ(manager->groups().describe_group("g").error, error_code::group_id_not_found);
    auto d = manager->consumers().describe("g");
    EXPECT_EQ(d.error, error_code::none);
    EXPECT_EQ(d.group_state, "Stable");
    EXPECT_EQ(d.assignor_name, "uniform");
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(assignment_size(d.members[0].assignment), 12u);
    EXPECT_EQ(manager->consumers().describe("classic").error, error_code::group_id_not_found);
    // A classic group with members is not converted.
    consumer_group_heartbeat_params p;
    p.group_id = "classic";
    p.member_id = "x";
    p.rebalance_timeout_ms = 1000;
    p.subscribed_topic_names = std::vector<std::string>{"t"};
    p.owned = topic_assignment{};
    EXPECT_EQ(manager->consumers().heartbeat(p, {"c", "/h", 1}, image).error,
              error_code::group_id_not_found);
    // An empty one (offsets only) is, offsets kept.
    EXPECT_EQ(commit("simple", -1, "", "t", 1, 7), error_code::none);
    p.group_id = "simple";
    EXPECT_EQ(manager->consumers().heartbeat(p, {"c", "/h", 1}, image).error, error_code::none);
    EXPECT_NE(manager->consumers().group("simple"), nullptr);
    EXPECT_EQ(committed("simple", "t", 1), 7);
    // A classic member cannot join a consumer group with members.
    auto j = group_manager_fixture::join("g", "", 5);
    ASSERT_TRUE(j->has_value());
    EXPECT_EQ(j->value().error, error_code::group_id_not_found);
    // DeleteGroups refuses a group with members, of either kind.
    EXPECT_EQ(manager->delete_group("g"), error_code::non_empty_group);
    beat("m1", 1);
    EXPECT_EQ(beat("m1", -1).error, error_code::none);
    EXPECT_EQ(manager->delete_group("g"), error_code::none);
    EXPECT_EQ(manager->consumers().group("g"), nullptr);
}

}  // namespace
}  // namespace samsa::coordinator::testing
