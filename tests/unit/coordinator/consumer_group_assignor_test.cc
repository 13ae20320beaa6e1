// The server-side assignors and the reconciliation step of consumer groups
// (KIP-848).
#include <gtest/gtest.h>

#include "coordinator/group/consumer_group_assignor.h"
#include "coordinator/group/current_assignment_builder.h"

namespace samsa::coordinator {
namespace {

const uuid t1 = uuid::random();
const uuid t2 = uuid::random();

assignment_spec spec_of(std::vector<std::string> members, std::map<uuid, int32_t> partitions) {
    assignment_spec s;
    s.partitions = partitions;
    for (auto& m : members) {
        for (auto& [t, n] : partitions) {
            s.members[m].topics.insert(t);
        }
    }
    return s;
}

size_t moved(const group_assignment& before, const group_assignment& after) {
    size_t n = 0;
    for (const auto& [id, a] : after) {
        auto b = before.find(id);
        n += assignment_size(b == before.end() ? a : assignment_minus(a, b->second));
    }
    return n;
}

void expect_exclusive_and_complete(const group_assignment& a,
                                   const std::map<uuid, int32_t>& parts) {
    std::map<std::pair<uuid, int32_t>, int> owners;
    for (const auto& [id, m] : a) {
        for (const auto& [t, ps] : m) {
            for (int32_t p : ps) {
                ++owners[{t, p}];
            }
        }
    }
    size_t total = 0;
    for (const auto& [t, n] : parts) {
        total += size_t(n);
        for (int32_t p = 0; p < n; ++p) {
            EXPECT_EQ((owners[{t, p}]), 1) << "partition " << p;
        }
    }
    EXPECT_EQ(owners.size(), total);
}

TEST(uniform_assignor, the_member_due_to_heartbeat_first_gives_a_partition_up) {
    auto uniform = make_assignor("uniform");
    // a, b, c hold 2 each of 6; d joins and takes one. c heartbeats next:
    // it hears of the revocation first, so it gives the partition up.
    auto s = spec_of({"a", "b", "c", "d"}, {{t1, 6}});
    s.members["a"].current = {{t1, {0, 1}}};
    s.members["b"].current = {{t1, {2, 3}}};
    s.members["c"].current = {{t1, {4, 5}}};
    s.members["a"].heartbeat_due_ms = 3000;
    s.members["b"].heartbeat_due_ms = 2000;
    s.members["c"].heartbeat_due_ms = 1000;
    auto out = uniform->assign(s);
    expect_exclusive_and_complete(out, s.partitions);
    EXPECT_EQ(assignment_size(out["c"]), 1u);
    EXPECT_EQ(assignment_size(out["d"]), 1u);
    EXPECT_EQ(out["a"], (topic_assignment{{t1, {0, 1}}}));
    EXPECT_EQ(out["b"], (topic_assignment{{t1, {2, 3}}}));
    // Recomputed from the same targets with b due first: b gives one up.
    s.members["b"].heartbeat_due_ms = 500;
    s.members["c"].heartbeat_due_ms = 4000;
    out = uniform->assign(s);
    EXPECT_EQ(assignment_size(out["b"]), 1u);
    EXPECT_EQ(out["c"], (topic_assignment{{t1, {4, 5}}}));
}

TEST(uniform_assignor, balances_and_moves_only_what_it_must) {
    auto uniform = make_assignor("uniform");
    ASSERT_NE(uniform, nullptr);
    auto s = spec_of({"a", "b", "c"}, {{t1, 12}});
    auto first = uniform->assign(s);
    expect_exclusive_and_complete(first, s.partitions);
    for (const auto& [id, a] : first) {
        EXPECT_EQ(assignment_size(a), 4u) << id;
    }
    // A fourth member: three partitions move, all to it.
    auto s4 = spec_of({"a", "b", "c", "d"}, {{t1, 12}});
    for (auto& [id, m] : s4.members) {
        m.current = first[id];
    }
    auto second = uniform->assign(s4);
    expect_exclusive_and_complete(second, s4.partitions);
    EXPECT_EQ(moved(first, second), 3u);
    EXPECT_EQ(assignment_size(second["d"]), 3u);
    // b leaves: only its three go elsewhere.
    auto s3 = spec_of({"a", "c", "d"}, {{t1, 12}});
    for (auto& [id, m] : s3.members) {
        m.current = second[id];
    }
    auto third = uniform->assign(s3);
    expect_exclusive_and_complete(third, s3.partitions);
    EXPECT_EQ(moved(second, third), 3u);
    for (const auto& [id, a] : third) {
        EXPECT_EQ(assignment_size(a), 4u) << id;
    }
}

TEST(uniform_assignor, gives_each_member_only_topics_it_subscribes_to) {
    auto uniform = make_assignor("uniform");
    assignment_spec s;
    s.partitions = {{t1, 4}, {t2, 2}};
    s.members["a"].topics = {t1};
    s.members["b"].topics = {t1, t2};
    auto out = uniform->assign(s);
    expect_exclusive_and_complete(out, s.partitions);
    EXPECT_EQ(out["a"].count(t2), 0u);
    EXPECT_EQ(assignment_size(out["a"]), 3u);
    EXPECT_EQ(assignment_size(out["b"]), 3u);
}

TEST(uniform_assignor, drops_partitions_of_topics_gone_or_unsubscribed) {
    auto uniform = make_assignor("uniform");
    auto s = spec_of({"a"}, {{t1, 2}});
    s.members["a"].current = {{t1, {0, 1, 5}}, {t2, {0}}};
    auto out = uniform->assign(s);
    EXPECT_EQ(out["a"], (topic_assignment{{t1, {0, 1}}}));
}

TEST(range_assignor, gives_ranges_per_topic_in_member_order) {
    auto range = make_assignor("range");
    ASSERT_NE(range, nullptr);
    auto out = range->assign(spec_of({"a", "b"}, {{t1, 5}, {t2, 5}}));
    EXPECT_EQ(out["a"], (topic_assignment{{t1, {0, 1, 2}}, {t2, {0, 1, 2}}}));
    EXPECT_EQ(out["b"], (topic_assignment{{t1, {3, 4}}, {t2, {3, 4}}}));
    EXPECT_EQ(make_assignor("sticky"), nullptr);
}

consumer_group_member member_with(int32_t epoch, topic_assignment assigned) {
    consumer_group_member m;
    m.member_id = "m";
    m.member_epoch = epoch;
    m.assigned = std::move(assigned);
    return m;
}

TEST(current_assignment_builder, revokes_before_it_assigns) {
    topic_assignment target{{t1, {0, 2}}};
    std::optional<topic_assignment> owned = topic_assignment{{t1, {0, 1}}};
    reconcile_input in;
    in.target_epoch = 5;
    in.target = &target;
    in.owned = &owned;
    in.partition_epoch = [](const uuid&, int32_t p) { return p == 1 ? 4 : -1; };
    auto m = member_with(4, {{t1, {0, 1}}});
    auto step1 = reconcile(m, in);
    EXPECT_EQ(step1.state, member_state::unrevoked_partitions);
    EXPECT_EQ(step1.member_epoch, 4);
    EXPECT_EQ(step1.assigned, (topic_assignment{{t1, {0}}}));
    EXPECT_EQ(step1.pending_revocation, (topic_assignment{{t1, {1}}}));
    // The next heartbeat still says it owns 1: nothing moves.
    EXPECT_EQ(reconcile(step1, in).state, member_state::unrevoked_partitions);
    // It gave 1 up: it reaches the target epoch and gets 2, which is free.
    owned = topic_assignment{{t1, {0}}};
    auto step2 = reconcile(step1, in);
    EXPECT_EQ(step2.state, member_state::stable);
    EXPECT_EQ(step2.member_epoch, 5);
    EXPECT_EQ(step2.previous_member_epoch, 4);
    EXPECT_EQ(step2.assigned, target);
    EXPECT_TRUE(step2.pending_revocation.empty());
    // KIP-1251: each partition keeps the epoch it came at. member_with gave
    // 0 and 1 none, so they settled at its epoch 4 on the first step.
    EXPECT_EQ(step1.assignment_epoch_of(t1, 0), 4);
    EXPECT_EQ(step1.assignment_epoch_of(t1, 1), 4);  // pending revocation
    EXPECT_EQ(step2.assignment_epoch_of(t1, 0), 4);
    EXPECT_EQ(step2.assignment_epoch_of(t1, 1), std::nullopt);  // gone
    EXPECT_EQ(step2.assignment_epoch_of(t1, 2), 5);
}

TEST(current_assignment_builder, a_partition_given_back_later_comes_at_the_later_epoch) {
    topic_assignment target{{t1, {0}}};
    std::optional<topic_assignment> owned = topic_assignment{{t1, {0}}};
    reconcile_input in;
    in.target_epoch = 6;
    in.target = &target;
    in.owned = &owned;
    in.partition_epoch = [](const uuid&, int32_t) { return -1; };
    auto m = member_with(5, {{t1, {0, 1}}});
    m.assignment_epochs = {{{t1, 0}, 2}, {{t1, 1}, 3}};
    // It no longer owns 1: it reaches 6 without it.
    auto step1 = reconcile(m, in);
    EXPECT_EQ(step1.member_epoch, 6);
    EXPECT_EQ(step1.assigned, target);
    EXPECT_EQ(step1.assignment_epoch_of(t1, 0), 2);
    EXPECT_EQ(step1.assignment_epoch_of(t1, 1), std::nullopt);
    // 1 comes back at epoch 7: at 7, not at the 3 it first came at.
    topic_assignment both{{t1, {0, 1}}};
    in.target_epoch = 7;
    in.target = &both;
    auto step2 = reconcile(step1, in);
    EXPECT_EQ(step2.member_epoch, 7);
    EXPECT_EQ(step2.assignment_epoch_of(t1, 0), 2);
    EXPECT_EQ(step2.assignment_epoch_of(t1, 1), 7);
}

TEST(current_assignment_builder, a_static_member_that_left_settles_at_epoch_zero) {
    auto m = member_with(-2, {{t1, {0}}});
    m.settle_assignment_epochs();
    EXPECT_EQ(m.assignment_epoch_of(t1, 0), 0);
    // A member that is not in the group before takes no epoch from it; one
    // that is keeps what it had.
    consumer_group_member before = member_with(3, {{t1, {0, 1}}});
    before.assignment_epochs = {{{t1, 0}, 1}, {{t1, 1}, 2}};
    auto next = member_with(4, {{t1, {0, 1, 2}}});
    next.settle_assignment_epochs(&before);
    EXPECT_EQ(next.assignment_epochs, (std::map<std::pair<uuid, int32_t>, int32_t>{
                                          {{t1, 0}, 1}, {{t1, 1}, 2}, {{t1, 2}, 4}}));
}

TEST(current_assignment_builder, waits_for_partitions_others_still_own) {
    topic_assignment target{{t1, {0, 1}}};
    std::optional<topic_assignment> owned = topic_assignment{};
    int32_t owner_of_1 = 3;
    reconcile_input in;
    in.target_epoch = 4;
    in.target = &target;
    in.owned = &owned;
    in.partition_epoch = [&](const uuid&, int32_t p) { return p == 1 ? owner_of_1 : -1; };
    auto step1 = reconcile(member_with(0, {}), in);
    EXPECT_EQ(step1.state, member_state::unreleased_partitions);
    EXPECT_EQ(step1.member_epoch, 4);
    EXPECT_EQ(step1.assigned, (topic_assignment{{t1, {0}}}));
    owner_of_1 = -1;
    auto step2 = reconcile(step1, in);
    EXPECT_EQ(step2.state, member_state::stable);
    EXPECT_EQ(step2.assigned, target);
}

}  // namespace
}  // namespace samsa::coordinator
