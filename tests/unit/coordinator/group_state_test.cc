#include "coordinator/group/group_state.h"

#include <gtest/gtest.h>

namespace samsa::coordinator {
namespace {

TEST(group_state, kafka_names_round_trip_case_insensitively) {
    EXPECT_EQ(group_state_name(group_state::completing_rebalance), "CompletingRebalance");
    EXPECT_EQ(parse_group_state("stable"), group_state::stable);
    EXPECT_EQ(parse_group_state("PREPARINGREBALANCE"), group_state::preparing_rebalance);
    EXPECT_EQ(parse_group_state("Empty"), group_state::empty);
    EXPECT_EQ(parse_group_state("AwaitingSync"), std::nullopt);
}

TEST(group_state, only_the_documented_transitions_are_valid) {
    using s = group_state;
    EXPECT_TRUE(is_valid_transition(s::empty, s::preparing_rebalance));
    EXPECT_TRUE(is_valid_transition(s::preparing_rebalance, s::completing_rebalance));
    EXPECT_TRUE(is_valid_transition(s::preparing_rebalance, s::empty));
    EXPECT_TRUE(is_valid_transition(s::completing_rebalance, s::stable));
    EXPECT_TRUE(is_valid_transition(s::completing_rebalance, s::preparing_rebalance));
    EXPECT_TRUE(is_valid_transition(s::stable, s::preparing_rebalance));
    for (auto from : {s::empty, s::preparing_rebalance, s::completing_rebalance, s::stable}) {
        EXPECT_TRUE(is_valid_transition(from, s::dead));
    }
    EXPECT_FALSE(is_valid_transition(s::empty, s::stable));
    EXPECT_FALSE(is_valid_transition(s::stable, s::completing_rebalance));
    EXPECT_FALSE(is_valid_transition(s::empty, s::completing_rebalance));
    EXPECT_FALSE(is_valid_transition(s::stable, s::empty));
    EXPECT_FALSE(is_valid_transition(s::dead, s::empty));
}

}  // namespace
}  // namespace samsa::coordinator
