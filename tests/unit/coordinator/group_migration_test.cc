// KIP-848's online migration: a classic group with members becomes a
// consumer group when a consumer-protocol member joins, its classic members
// are served there with JoinGroup / SyncGroup / Heartbeat until everyone
// reconciled; the group becomes classic again when its last
// consumer-protocol member leaves; group.consumer.migration.policy can
// forbid either; classic members survive a reload and keep their own
// session timeout.
#include <gtest/gtest.h>

#include "coordinator/group/consumer_protocol.h"
#include "coordinator/group_manager_fixture.h"
#include "protocol/writer.h"

namespace samsa::coordinator::testing {
namespace {

constexpr int32_t classic_session_ms = 10000;

class group_migration_test : public group_manager_fixture {
  protected:
    void SetUp() override {
        config.consumer_session_timeout_ms = 45000;
        config.consumer_heartbeat_interval_ms = 5000;
        group_manager_fixture::SetUp();
        add_topic("t", 4);
    }

    // A ConsumerProtocolSubscription v1 of topic t, owning `owned` of it.
    static bytes subscription(const std::set<int32_t>& owned) {
        protocol::consumer_protocol_subscription s;
        s.topics = {"t"};
        if (!owned.empty()) {
            auto& tp = s.owned_partitions.emplace_back();
            tp.topic = "t";
            tp.partitions.assign(owned.begin(), owned.end());
        }
        protocol::writer w;
        w.write_int16(1);
        s.encode(w, 1);
        return w.buffer();
    }

    bytes assignment_of(const std::set<int32_t>& parts) {
        return encode_consumer_assignment({{id_of("t"), parts}}, {{id_of("t"), "t"}}, 1);
    }

    static std::set<int32_t> partitions_in(const bytes& assignment) {
        std::set<int32_t> out;
        auto a = decode_consumer_assignment(assignment);
        EXPECT_TRUE(a.has_value());
        for (const auto& tp : a->assigned_partitions) {
            out.insert(tp.partitions.begin(), tp.partitions.end());
        }
        return out;
    }

    // A JoinGroup whose answer lands in `out`, now or later.
    void start_join(const std::string& member_id, const std::set<int32_t>& owned,
                    std::optional<join_group_result>& out, const std::string& protocol = "range",
                    int16_t version = 3, std::optional<std::string> instance = std::nullopt) {
        join_group_params req;
        req.group_id = "g";
        req.member_id = member_id;
        req.group_instance_id = std::move(instance);
        req.session_timeout_ms = classic_session_ms;
        req.rebalance_timeout_ms = 20000;
        req.protocol_type = "consumer";
        req.protocols = {{protocol, subscription(owned)}};
        manager->join_group(req, {"classic", "/127.0.0.1", version}, image,
                            [&out](join_group_result r) { out = std::move(r); });
    }

    join_group_result classic_join(const std::string& member_id,
                                   const std::set<int32_t>& owned = {}) {
        std::optional<join_group_result> out;
        start_join(member_id, owned, out);
        advance(1);
        EXPECT_TRUE(out.has_value());
        return out.value_or(join_group_result{});
    }

    sync_group_result classic_sync(const join_group_result& joined,
                                   std::map<std::string, bytes> assignments = {}) {
        sync_group_params req;
        req.group_id = "g";
        req.member_id = joined.member_id;
        req.generation_id = joined.generation_id;
        req.protocol_type = "consumer";
        req.protocol_name = "range";
        for (auto& [id, a] : assignments) {
            req.assignments.emplace_back(id, a);
        }
        std::optional<sync_group_result> out;
        manager->sync_group(req, {"classic", "/127.0.0.1", 3},
                            [&out](sync_group_result r) { out = std::move(r); });
        run_posted();
        EXPECT_TRUE(out.has_value());
        return out.value_or(sync_group_result{});
    }

    error_code classic_heartbeat(const std::string& member_id, int32_t generation) {
        heartbeat_params req;
        req.group_id = "g";
        req.member_id = member_id;
        req.generation_id = generation;
        return manager->heartbeat(req);
    }

    consumer_group_heartbeat_result consumer_beat(
        const std::string& member_id, int32_t epoch, std::optional<topic_assignment> owned,
        std::optional<std::string> instance = std::nullopt) {
        consumer_group_heartbeat_params p;
        p.group_id = "g";
        p.member_id = member_id;
        p.member_epoch = epoch;
        p.instance_id = std::move(instance);
        if (epoch == 0) {
            p.rebalance_timeout_ms = 20000;
            p.subscribed_topic_names = std::vector<std::string>{"t"};
        }
        p.owned = std::move(owned);
        return manager->consumers().heartbeat(p, {"consumer", "/127.0.0.1", 1}, image);
    }

    // A classic group of two members, c1 with t-0,1 and c2 with t-2,3, at
    // generation 1.
    void stable_classic_group() {
        std::optional<join_group_result> a, b;
        start_join("", {}, a);
        start_join("", {}, b);
        advance(1);
        ASSERT_TRUE(a && b);
        ASSERT_EQ(a->error, error_code::none);
        ASSERT_EQ(b->error, error_code::none);
        const join_group_result& leader = a->leader == a->member_id ? *a : *b;
        const join_group_result& follower = a->leader == a->member_id ? *b : *a;
        ASSERT_EQ(leader.generation_id, follower.generation_id);
        c1 = leader.member_id;
        c2 = follower.member_id;
        ASSERT_EQ(
            classic_sync(leader, {{c1, assignment_of({0, 1})}, {c2, assignment_of({2, 3})}}).error,
            error_code::none);
        ASSERT_EQ(classic_sync(follower).error, error_code::none);
        ASSERT_EQ(state("g"), group_state::stable);
        owned[c1] = {0, 1};
        owned[c2] = {2, 3};
        generations[c1] = generations[c2] = generation("g");
    }

    // Every member heartbeats (a classic one rejoining and syncing when
    // told to) until all reached the group epoch, each partition owned once.
    void reconcile_all(const std::vector<std::string>& consumers) {
        for (int round = 0; round < 20; ++round) {
            for (const auto& id : {c1, c2}) {
                auto g = manager->consumers().group("g");
                if (!g || !g->get(id)) {
                    continue;
                }
                if (classic_heartbeat(id, generations[id]) != error_code::rebalance_in_progress) {
                    continue;
                }
                auto joined = classic_join(id, owned[id]);
                ASSERT_EQ(joined.error, error_code::none);
                generations[id] = joined.generation_id;
                auto synced = classic_sync(joined);
                if (synced.error == error_code::none) {
                    owned[id] = partitions_in(synced.assignment);
                }
            }
            for (const auto& id : consumers) {
                auto r = consumer_beat(id, epochs[id], topic_assignment{{id_of("t"), owned[id]}});
                ASSERT_EQ(r.error, error_code::none);
                epochs[id] = r.member_epoch;
                if (r.assignment) {
                    owned[id] = r.assignment->count(id_of("t")) ? r.assignment->at(id_of("t"))
                                                                : std::set<int32_t>{};
                }
            }
            auto g = manager->consumers().group("g");
            if (g->state() == consumer_group_state::stable) {
                return;
            }
        }
        FAIL() << "the group did not reconcile";
    }

    // c1 and c2 upgraded by consumer member n1 (static with `instance`),
    // reconciled.
    void mixed_group(std::optional<std::string> instance = std::nullopt) {
        stable_classic_group();
        auto r = consumer_beat("n1", 0, topic_assignment{}, instance);
        ASSERT_EQ(r.error, error_code::none) << r.error_message.value_or("");
        epochs["n1"] = r.member_epoch;
        reconcile_all({"n1"});
    }

    std::string c1, c2;
    std::map<std::string, std::set<int32_t>> owned;
    std::map<std::string, int32_t> generations;
    std::map<std::string, int32_t> epochs;
};

TEST_F(group_migration_test, a_consumer_member_upgrades_a_classic_group_with_members) {
    stable_classic_group();
    EXPECT_EQ(commit("g", 1, c1, "t", 0, 5, "", 8), error_code::none);
    auto r = consumer_beat("n1", 0, topic_assignment{});
    ASSERT_EQ(r.error, error_code::none) << r.error_message.value_or("");
    // The group is a consumer group at the classic generation, bumped by n1.
    auto g = manager->consumers().group("g");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(manager->groups().group("g"), nullptr);
    EXPECT_EQ(g->group_epoch(), 2);
    EXPECT_EQ(r.member_epoch, 2);
    EXPECT_EQ(g->classic_member_count(), 2u);
    ASSERT_NE(g->get(c1), nullptr);
    EXPECT_EQ(g->get(c1)->member_epoch, 1);
    EXPECT_EQ(g->get(c1)->assigned, (topic_assignment{{id_of("t"), {0, 1}}}));
    // n1 waits: everything is still c1's or c2's.
    EXPECT_TRUE(r.assignment && assignment_empty(*r.assignment));
    // The offsets came along; a classic member commits with its generation,
    // at any version; another generation is ILLEGAL_GENERATION.
    EXPECT_EQ(committed("g", "t", 0), 5);
    EXPECT_EQ(commit("g", 1, c1, "t", 0, 6, "", 8), error_code::none);
    EXPECT_EQ(commit("g", 2, c1, "t", 0, 6, "", 8), error_code::illegal_generation);
    // The classic members learn of the new epoch from their heartbeat.
    EXPECT_EQ(classic_heartbeat(c1, 1), error_code::rebalance_in_progress);
    EXPECT_EQ(classic_heartbeat(c1, 7), error_code::illegal_generation);
    EXPECT_EQ(classic_heartbeat("nobody", 1), error_code::unknown_member_id);

    epochs["n1"] = r.member_epoch;
    reconcile_all({"n1"});
    g = manager->consumers().group("g");
    std::set<int32_t> all;
    size_t total = 0;
    for (const auto& id : {c1, c2, std::string("n1")}) {
        EXPECT_EQ(g->get(id)->member_epoch, g->group_epoch()) << id;
        EXPECT_FALSE(owned[id].empty()) << id;
        all.insert(owned[id].begin(), owned[id].end());
        total += owned[id].size();
    }
    EXPECT_EQ(all, (std::set<int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(total, 4u);
}

TEST_F(group_migration_test, a_classic_join_to_a_consumer_group_needs_a_supported_protocol) {
    mixed_group();
    std::optional<join_group_result> out;
    start_join("", {}, out, "roundrobin");
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ(out->error, error_code::inconsistent_group_protocol);
    // JoinGroup v4+ without a member id is given one first (KIP-394).
    start_join("", {}, out, "range", 5);
    EXPECT_EQ(out->error, error_code::member_id_required);
    EXPECT_FALSE(out->member_id.empty());
}

TEST_F(group_migration_test, the_last_consumer_member_leaving_downgrades_the_group) {
    mixed_group();
    const int32_t epoch = manager->consumers().group("g")->group_epoch();
    EXPECT_EQ(commit("g", generations[c1], c1, "t", 1, 9, "", 8), error_code::none);
    auto left = consumer_beat("n1", -1, std::nullopt);
    ASSERT_EQ(left.error, error_code::none);
    // A classic group of c1 and c2 at the group epoch, rebalancing.
    EXPECT_EQ(manager->consumers().group("g"), nullptr);
    ASSERT_NE(manager->groups().group("g"), nullptr);
    EXPECT_EQ(state("g"), group_state::preparing_rebalance);
    EXPECT_EQ(generation("g"), epoch);
    EXPECT_EQ(manager->groups().group("g")->size(), 2u);
    EXPECT_EQ(committed("g", "t", 1), 9);
    EXPECT_EQ(classic_heartbeat(c1, epoch), error_code::rebalance_in_progress);
    // Both rejoin under the classic protocol: the next generation.
    std::optional<join_group_result> a, b;
    start_join(c1, {}, a);
    start_join(c2, {}, b);
    advance(1);
    ASSERT_TRUE(a && b);
    for (const auto& r : {*a, *b}) {
        EXPECT_EQ(r.error, error_code::none);
        EXPECT_EQ(r.generation_id, epoch + 1);
    }
    EXPECT_EQ(state("g"), group_state::completing_rebalance);
}

TEST_F(group_migration_test, a_classic_instance_replacing_the_last_consumer_member_downgrades) {
    mixed_group("i1");
    auto g = manager->consumers().group("g");
    const int32_t epoch = g->group_epoch();
    const topic_assignment n1_target = g->target_of("n1");
    // The static member restarts as a classic consumer with the same
    // group.instance.id: the group is classic at once, without a rebalance.
    std::optional<join_group_result> joined;
    start_join("", {}, joined, "range", 5, "i1");
    ASSERT_TRUE(joined.has_value());
    ASSERT_EQ(joined->error, error_code::none);
    EXPECT_EQ(manager->consumers().group("g"), nullptr);
    ASSERT_NE(manager->groups().group("g"), nullptr);
    EXPECT_EQ(state("g"), group_state::stable);
    EXPECT_EQ(generation("g"), epoch);
    EXPECT_EQ(joined->generation_id, epoch);
    EXPECT_EQ(manager->groups().group("g")->size(), 3u);
    // It syncs into what n1 had; the others keep theirs.
    auto synced = classic_sync(*joined);
    ASSERT_EQ(synced.error, error_code::none);
    EXPECT_EQ(partitions_in(synced.assignment), n1_target.at(id_of("t")));
    EXPECT_EQ(classic_heartbeat(c1, epoch), error_code::none);
}

TEST_F(group_migration_test, the_migration_policy_can_forbid_an_upgrade) {
    config.consumer_migration_upgrade = false;
    start_manager();
    stable_classic_group();
    auto r = consumer_beat("n1", 0, topic_assignment{});
    EXPECT_EQ(r.error, error_code::group_id_not_found);
    EXPECT_EQ(state("g"), group_state::stable);
    EXPECT_EQ(classic_heartbeat(c1, generations[c1]), error_code::none);
}

TEST_F(group_migration_test, the_migration_policy_can_forbid_a_downgrade) {
    config.consumer_migration_downgrade = false;
    start_manager();
    mixed_group();
    ASSERT_EQ(consumer_beat("n1", -1, std::nullopt).error, error_code::none);
    // A consumer group of classic members stays one.
    auto g = manager->consumers().group("g");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->size(), 2u);
    EXPECT_EQ(g->classic_member_count(), 2u);
}

TEST_F(group_migration_test, classic_members_survive_a_reload_and_keep_their_session) {
    mixed_group();
    start_manager();
    auto g = manager->consumers().group("g");
    ASSERT_NE(g, nullptr);
    ASSERT_NE(g->get(c1), nullptr);
    ASSERT_TRUE(g->get(c1)->classic.has_value());
    EXPECT_EQ(g->get(c1)->classic->session_timeout_ms, classic_session_ms);
    EXPECT_EQ(classic_heartbeat(c1, generations[c1]), error_code::none);
    // The consumer member heartbeats, the classic members do not: their own
    // (shorter) session fences them.
    for (int i = 0; i < 3; ++i) {
        advance(classic_session_ms / 2);
        auto r = consumer_beat("n1", epochs["n1"], topic_assignment{{id_of("t"), owned["n1"]}});
        ASSERT_EQ(r.error, error_code::none);
        epochs["n1"] = r.member_epoch;
    }
    g = manager->consumers().group("g");
    EXPECT_EQ(g->get(c1), nullptr);
    EXPECT_EQ(g->get(c2), nullptr);
    EXPECT_NE(g->get("n1"), nullptr);
}

TEST_F(group_migration_test, a_classic_member_leaving_a_consumer_group_frees_its_partitions) {
    mixed_group();
    const int32_t epoch = manager->consumers().group("g")->group_epoch();
    leaving_member lm;
    lm.member_id = c1;
    auto r = manager->leave_group("g", {lm});
    ASSERT_EQ(r.members.size(), 1u);
    EXPECT_EQ(r.members[0].error, error_code::none);
    lm.member_id = "n1";  // not a classic member: LeaveGroup cannot remove it
    EXPECT_EQ(manager->leave_group("g", {lm}).members[0].error, error_code::unknown_member_id);
    auto g = manager->consumers().group("g");
    EXPECT_EQ(g->get(c1), nullptr);
    EXPECT_GT(g->group_epoch(), epoch);
}

TEST(group_migration_policy, names_which_conversions_are_allowed) {
    config::broker_config b;
    auto allowed = [&b](const char* policy) {
        b.group_consumer_migration_policy = policy;
        auto c = group_config::from(b);
        return std::make_pair(c.consumer_migration_upgrade, c.consumer_migration_downgrade);
    };
    EXPECT_EQ(allowed("bidirectional"), std::make_pair(true, true));
    EXPECT_EQ(allowed("upgrade"), std::make_pair(true, false));
    EXPECT_EQ(allowed("downgrade"), std::make_pair(false, true));
    EXPECT_EQ(allowed("disabled"), std::make_pair(false, false));
}

}  // namespace
}  // namespace samsa::coordinator::testing
