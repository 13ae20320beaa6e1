#include "raft/quorum_state.h"

#include <gtest/gtest.h>

namespace samsa::raft {
namespace {

struct fixture {
    explicit fixture(int32_t id) {
        config.local_id = node_id{id};
        config.voters = {node_id{1}, node_id{2}, node_id{3}};
    }
    raft_config config;
    memory_quorum_state_store store;
    seeded_random random{1};
    quorum_state q{config, store, random};
};

constexpr raft_time now{};

TEST(quorum_state, a_fresh_voter_starts_unattached_in_epoch_0) {
    fixture f(1);
    ASSERT_TRUE(f.q.initialize(raft_epoch{0}, now));
    EXPECT_EQ(f.q.kind(), role_kind::unattached);
    EXPECT_EQ(f.q.epoch(), raft_epoch{0});
}

TEST(quorum_state, candidate_bumps_the_epoch_and_persists_its_own_vote_first) {
    fixture f(1);
    ASSERT_TRUE(f.q.initialize(raft_epoch{0}, now));
    ASSERT_TRUE(f.q.to_prospective(now));
    EXPECT_EQ(f.store.writes(), 0) << "pre-vote changes nothing persisted";
    ASSERT_TRUE(f.q.to_candidate(now));
    EXPECT_EQ(f.q.epoch(), raft_epoch{1});
    ASSERT_TRUE(f.store.state());
    EXPECT_EQ(f.store.state()->epoch, raft_epoch{1});
    EXPECT_EQ(f.store.state()->voted, node_id{1});
}

TEST(quorum_state, illegal_transitions_are_refused) {
    fixture f(1);
    ASSERT_TRUE(f.q.initialize(raft_epoch{0}, now));
    EXPECT_FALSE(f.q.to_leader(raft_offset{0}, now)) << "leader only from a won candidacy";
    EXPECT_FALSE(f.q.to_candidate(now)) << "candidate only after a pre-vote";
    EXPECT_FALSE(f.q.to_resigned({}, now));
    ASSERT_TRUE(f.q.to_follower(raft_epoch{2}, node_id{2}, now));
    EXPECT_FALSE(f.q.to_follower(raft_epoch{2}, node_id{3}, now)) << "one leader per epoch";
    EXPECT_FALSE(f.q.to_unattached(raft_epoch{1}, now)) << "epochs never go back";
    EXPECT_FALSE(f.q.to_voted(raft_epoch{2}, node_id{3}, now)) << "a follower does not vote";
    EXPECT_EQ(f.q.kind(), role_kind::follower);
}

TEST(quorum_state, a_vote_is_for_one_candidate_per_epoch) {
    fixture f(1);
    ASSERT_TRUE(f.q.initialize(raft_epoch{0}, now));
    ASSERT_TRUE(f.q.to_unattached(raft_epoch{3}, now));
    ASSERT_TRUE(f.q.to_voted(raft_epoch{3}, node_id{2}, now));
    EXPECT_FALSE(f.q.to_voted(raft_epoch{3}, node_id{3}, now));
    EXPECT_TRUE(f.q.to_voted(raft_epoch{4}, node_id{3}, now));
}

TEST(quorum_state, observers_never_vote_or_stand) {
    fixture f(7);
    ASSERT_TRUE(f.q.initialize(raft_epoch{0}, now));
    EXPECT_FALSE(f.q.to_prospective(now));
    EXPECT_FALSE(f.q.to_voted(raft_epoch{1}, node_id{1}, now));
    ASSERT_TRUE(f.q.to_follower(raft_epoch{1}, node_id{1}, now));
    // An observer that lost its leader looks for it again in the same epoch.
    EXPECT_TRUE(f.q.to_unattached(raft_epoch{1}, now));
}

TEST(quorum_state, restart_resumes_the_persisted_role) {
    fixture f(1);
    ASSERT_TRUE(f.store.write({raft_epoch{5}, no_node, node_id{3}, f.config.voters, ""}));
    ASSERT_TRUE(f.q.initialize(raft_epoch{4}, now));
    EXPECT_EQ(f.q.kind(), role_kind::voted);
    EXPECT_EQ(f.q.voted(), node_id{3});
    EXPECT_EQ(f.q.epoch(), raft_epoch{5});
}

TEST(quorum_state, a_log_ahead_of_the_state_file_wins) {
    fixture f(1);
    ASSERT_TRUE(f.store.write({raft_epoch{2}, node_id{2}, no_node, f.config.voters, ""}));
    ASSERT_TRUE(f.q.initialize(raft_epoch{6}, now));
    EXPECT_EQ(f.q.kind(), role_kind::unattached);
    EXPECT_EQ(f.q.epoch(), raft_epoch{6});
    EXPECT_EQ(f.store.state()->epoch, raft_epoch{6});
}

}  // namespace
}  // namespace samsa::raft
