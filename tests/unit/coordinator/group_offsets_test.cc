// Committed offsets, administration, loading and expiry through group_manager.
#include <gtest/gtest.h>

#include "coordinator/group_manager_fixture.h"

namespace samsa::coordinator::testing {
namespace {

using group_offsets_test = group_manager_fixture;

TEST_F(group_offsets_test, members_commit_with_their_generation) {
    const std::string m1 = stable_group_of_one("g");
    EXPECT_EQ(commit("g", 1, m1, "t", 0, 42, "meta"), error_code::none);
    EXPECT_EQ(committed("g", "t", 0), 42);
    EXPECT_EQ(commit("g", 0, m1, "t", 0, 43), error_code::illegal_generation);
    EXPECT_EQ(commit("g", 1, "stranger", "t", 0, 43), error_code::unknown_member_id);
    EXPECT_EQ(committed("g", "t", 0), 42);
    EXPECT_EQ(committed("g", "t", 1), -1);
    // A group-managed commit during a rebalance is fine ...
    join("g", "");
    EXPECT_EQ(commit("g", 1, m1, "t", 0, 44), error_code::none);
    // ... but not between the join and the assignment.
    auto j1 = join("g", m1);
    ASSERT_TRUE(j1->has_value());
    EXPECT_EQ(commit("g", 2, m1, "t", 0, 45), error_code::rebalance_in_progress);
}

// Kafka's ClassicGroup.validateOffsetCommit in each rebalance state, for a
// member committing from its revoke callback: the generation is checked
// first (ILLEGAL_GENERATION), then CompletingRebalance refuses
// (REBALANCE_IN_PROGRESS); PreparingRebalance accepts the current one.
TEST_F(group_offsets_test, commits_while_a_generation_is_revoked_get_kafkas_errors) {
    const std::string m1 = stable_group_of_one("g");
    join("g", "");  // a newcomer: PreparingRebalance
    ASSERT_EQ(state("g"), group_state::preparing_rebalance);
    EXPECT_EQ(commit("g", 1, m1, "t", 0, 1), error_code::none);
    EXPECT_EQ(commit("g", 0, m1, "t", 0, 1), error_code::illegal_generation);
    EXPECT_EQ(commit("g", 2, m1, "t", 0, 1), error_code::illegal_generation);
    auto j1 = join("g", m1);  // m1 rejoins: the join completes
    advance(1);
    ASSERT_EQ(state("g"), group_state::completing_rebalance);
    EXPECT_EQ(commit("g", 1, m1, "t", 0, 2), error_code::illegal_generation);
    EXPECT_EQ(commit("g", 2, m1, "t", 0, 2), error_code::rebalance_in_progress);
    EXPECT_EQ(commit("g", 2, "stranger", "t", 0, 2), error_code::unknown_member_id);
    EXPECT_EQ(committed("g", "t", 0), 1);
}

TEST_F(group_offsets_test, simple_commits_need_a_group_without_members) {
    EXPECT_EQ(commit("simple", -1, "", "t", 0, 10), error_code::none);
    EXPECT_EQ(committed("simple", "t", 0), 10);
    EXPECT_EQ(manager->groups().group("simple")->protocol_type(), std::nullopt);
    // A generation the coordinator never saw, for a group it does not know.
    EXPECT_EQ(commit("unknown", 3, "m", "t", 0, 1), error_code::illegal_generation);
    stable_group_of_one("managed");
    EXPECT_EQ(commit("managed", -1, "", "t", 0, 1), error_code::unknown_member_id);
}

TEST_F(group_offsets_test, commit_metadata_over_the_limit_is_refused) {
    config.offset_metadata_max_bytes = 4;
    start_manager();
    EXPECT_EQ(commit("g", -1, "", "t", 0, 1, "12345"), error_code::offset_metadata_too_large);
    EXPECT_EQ(commit("g", -1, "", "t", 0, 1, "1234"), error_code::none);
}

TEST_F(group_offsets_test, fetch_all_offsets_of_a_group) {
    commit("g", -1, "", "a", 0, 1);
    commit("g", -1, "", "b", 1, 2);
    auto r = manager->offsets().fetch_offsets("g", std::nullopt, true);
    EXPECT_EQ(r.error, error_code::none);
    ASSERT_EQ(r.partitions.size(), 2u);
    EXPECT_EQ(r.partitions[1].tp, (storage::topic_partition{"b", 1}));
    EXPECT_EQ(r.partitions[1].offset, 2);
    EXPECT_TRUE(manager->offsets().fetch_offsets("nobody", std::nullopt, false).partitions.empty());
}

TEST_F(group_offsets_test, a_reelected_coordinator_reloads_groups_and_offsets_from_the_log) {
    const std::string m1 = stable_group_of_one("g");
    commit("g", 1, m1, "t", 0, 100);
    commit("g", 1, m1, "t", 0, 101);
    commit("simple", -1, "", "t", 3, 7);
    commit("gone", -1, "", "t", 0, 1);
    ASSERT_EQ(manager->delete_group("gone"), error_code::none);

    manager->on_resigned(0);
    EXPECT_EQ(manager->coordinator_status("g"), error_code::not_coordinator);
    manager->on_elected(0, partition.get());
    EXPECT_EQ(manager->coordinator_status("g"), error_code::coordinator_load_in_progress);
    EXPECT_EQ(heartbeat("g", m1, 1), error_code::coordinator_load_in_progress);
    run_posted();
    EXPECT_EQ(manager->coordinator_status("g"), error_code::none);

    EXPECT_EQ(committed("g", "t", 0), 101);
    EXPECT_EQ(committed("simple", "t", 3), 7);
    EXPECT_EQ(manager->groups().group("gone"), nullptr);
    // The member carries on in its generation: no rebalance after a reload.
    EXPECT_EQ(state("g"), group_state::stable);
    EXPECT_EQ(heartbeat("g", m1, 1), error_code::none);
    auto s = sync("g", m1, 1);
    EXPECT_EQ(s->value().assignment, bytes{1});
}

TEST_F(group_offsets_test, a_reloaded_member_that_never_returns_expires) {
    const std::string m1 = stable_group_of_one("g");
    manager->on_resigned(0);
    manager->on_elected(0, partition.get());
    run_posted();
    advance(1001);
    EXPECT_FALSE(manager->groups().group("g")->has(m1));
}

TEST_F(group_offsets_test, loading_reads_the_log_in_chunks) {
    config.load_chunk_bytes = 64;  // about one small batch per step
    start_manager();
    for (int i = 0; i < 20; ++i) {
        commit("g", -1, "", "t", i, i);
    }
    manager->on_resigned(0);
    manager->on_elected(0, partition.get());
    io.restart();
    io.run_one();
    EXPECT_TRUE(manager->is_loading(0));
    run_posted();
    EXPECT_TRUE(manager->is_loaded(0));
    EXPECT_EQ(committed("g", "t", 19), 19);
}

TEST_F(group_offsets_test, describe_list_and_delete_groups) {
    const std::string m1 = stable_group_of_one("g");
    commit("g", 1, m1, "t", 0, 5);
    commit("simple", -1, "", "t", 0, 5);

    auto d = manager->groups().describe_group("g");
    EXPECT_EQ(d.error, error_code::none);
    EXPECT_EQ(d.group_state, "Stable");
    EXPECT_EQ(d.protocol_type, "consumer");
    EXPECT_EQ(d.protocol_data, "range");
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member_id, m1);
    EXPECT_EQ(d.members[0].client_host, "/127.0.0.1");
    EXPECT_EQ(d.members[0].member_assignment, bytes{1});
    EXPECT_EQ(manager->groups().describe_group("nobody").group_state, "Dead");

    bool loading = false;
    EXPECT_EQ(manager->groups().list_groups({}, loading).size(), 2u);
    list_groups_filter stable_only;
    stable_only.states = {"stable"};
    auto listed = manager->groups().list_groups(stable_only, loading);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].group_id, "g");
    EXPECT_EQ(listed[0].group_state, "Stable");
    EXPECT_EQ(listed[0].group_type, "classic");
    list_groups_filter consumer_type_only;
    consumer_type_only.types = {group_type::consumer};
    EXPECT_TRUE(manager->groups().list_groups(consumer_type_only, loading).empty());
    EXPECT_FALSE(loading);

    EXPECT_EQ(manager->delete_group("g"), error_code::non_empty_group);
    EXPECT_EQ(manager->delete_group("nobody"), error_code::group_id_not_found);
    EXPECT_EQ(manager->delete_group("simple"), error_code::none);
    EXPECT_EQ(committed("simple", "t", 0), -1);
    EXPECT_EQ(manager->delete_group("simple"), error_code::group_id_not_found);
    leave("g", m1);
    EXPECT_EQ(manager->delete_group("g"), error_code::none);
    EXPECT_EQ(manager->groups().describe_group("g").group_state, "Dead");
}

TEST_F(group_offsets_test, offset_delete_spares_subscribed_topics_of_active_groups) {
    // A consumer subscription (v0) to topic "t".
    bytes sub = {0, 0, 0, 0, 0, 1, 0, 1, 't', 0xff, 0xff, 0xff, 0xff};
    join_group_params req;
    req.group_id = "g";
    req.session_timeout_ms = 1000;
    req.rebalance_timeout_ms = 2000;
    req.protocol_type = "consumer";
    req.protocols.push_back({"range", sub});
    std::optional<join_group_result> j;
    manager->groups().join_group(req, {"c", "/h", 3}, [&](join_group_result r) { j = r; });
    advance(1);
    ASSERT_TRUE(j);
    const std::string m = j->member_id;
    sync("g", m, 1, {{m, {}}});
    commit("g", 1, m, "t", 0, 1);
    commit("g", 1, m, "u", 0, 1);

    std::vector<offset_delete_item> items(2);
    items[0].tp = {"t", 0};
    items[1].tp = {"u", 0};
    EXPECT_EQ(manager->offsets().delete_offsets("g", items), error_code::none);
    EXPECT_EQ(items[0].error, error_code::group_subscribed_to_topic);
    EXPECT_EQ(items[1].error, error_code::none);
    EXPECT_EQ(committed("g", "u", 0), -1);
    EXPECT_EQ(committed("g", "t", 0), 1);
    std::vector<offset_delete_item> none;
    EXPECT_EQ(manager->offsets().delete_offsets("nobody", none), error_code::group_id_not_found);
}

TEST_F(group_offsets_test, offsets_of_empty_groups_expire_and_the_group_goes) {
    commit("simple", -1, "", "t", 0, 1);
    wall += config.offsets_retention_ms - 1;
    EXPECT_EQ(manager->offsets().expire_offsets(), 0u);
    wall += 1;
    EXPECT_EQ(manager->offsets().expire_offsets(), 1u);
    EXPECT_EQ(manager->groups().group("simple"), nullptr);
    // The tombstones are in the log: a reload does not bring them back.
    manager->on_resigned(0);
    manager->on_elected(0, partition.get());
    run_posted();
    EXPECT_EQ(manager->groups().group("simple"), nullptr);
}

TEST_F(group_offsets_test, the_retention_check_runs_on_its_interval) {
    config.offsets_retention_check_interval_ms = 1000;
    config.offsets_retention_ms = 500;
    start_manager();
    commit("simple", -1, "", "t", 0, 1);
    wall += 600;
    advance(1000);
    EXPECT_EQ(manager->groups().group("simple"), nullptr);
}

TEST_F(group_offsets_test, offsets_of_deleted_topics_are_removed) {
    commit("a", -1, "", "doomed", 0, 1);
    commit("a", -1, "", "kept", 0, 1);
    commit("b", -1, "", "doomed", 1, 1);
    manager->offsets().remove_offsets_of_topics({"doomed"});
    EXPECT_EQ(committed("a", "doomed", 0), -1);
    EXPECT_EQ(committed("a", "kept", 0), 1);
    EXPECT_EQ(manager->groups().group("b"), nullptr);  // nothing left: the group went too
}

TEST_F(group_offsets_test, a_new_leader_epoch_while_leading_keeps_the_groups_serving) {
    const std::string m1 = stable_group_of_one("g");
    manager->on_elected(0, partition.get());
    EXPECT_EQ(manager->coordinator_status("g"), error_code::none);
    EXPECT_EQ(heartbeat("g", m1, 1), error_code::none);
}

}  // namespace
}  // namespace samsa::coordinator::testing
