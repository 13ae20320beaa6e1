#include "metadata/replica_assignment.h"

#include <gtest/gtest.h>

#include <set>

namespace samsa::metadata {
namespace {

TEST(replica_assignment, round_robin_spreads_leaders_and_never_repeats_a_broker) {
    std::mt19937 rng(42);
    std::vector<int32_t> brokers = {1, 2, 3, 5};
    auto r = assign_replicas(brokers, 0, 8, 3, rng);
    ASSERT_TRUE(r) << r.err().message;
    ASSERT_EQ(r->size(), 8u);
    std::map<int32_t, int> leaders;
    for (const auto& replicas : *r) {
        ASSERT_EQ(replicas.size(), 3u);
        EXPECT_EQ(std::set<int32_t>(replicas.begin(), replicas.end()).size(), 3u);
        ++leaders[replicas.front()];
    }
    for (int32_t b : brokers) {
        EXPECT_EQ(leaders[b], 2) << b;
    }
}

TEST(replica_assignment, refuses_factors_it_cannot_meet) {
    std::mt19937 rng(1);
    auto too_many = assign_replicas({1}, 0, 1, 2, rng);
    ASSERT_FALSE(too_many);
    EXPECT_EQ(too_many.err().code, error_code::invalid_replication_factor);
    EXPECT_EQ(too_many.err().message,
              "The target replication factor of 2 cannot be reached because only 1 broker(s) "
              "are registered.");
    EXPECT_EQ(assign_replicas({}, 0, 1, 1, rng).err().message, "All brokers are currently fenced.");
    EXPECT_FALSE(assign_replicas({1}, 0, 1, 0, rng));
}

TEST(replica_assignment, fenced_brokers_are_not_usable) {
    metadata_image img;
    img.brokers[1].id = 1;
    img.brokers[2].id = 2;
    img.brokers[2].fenced = true;
    img.brokers[3].id = 3;
    img.brokers[3].in_controlled_shutdown = true;
    EXPECT_EQ(usable_brokers(img), (std::vector<int32_t>{1}));
    EXPECT_EQ(initial_isr(img, {3, 2, 1}), (std::vector<int32_t>{1}));
    EXPECT_TRUE(validate_manual_assignment(img, {2, 1}, std::nullopt));
    EXPECT_EQ(validate_manual_assignment(img, {1, 9, 4}, std::nullopt).err().message,
              "The manual partition assignment includes broker 4, but no such broker is "
              "registered.");
}

}  // namespace
}  // namespace samsa::metadata
