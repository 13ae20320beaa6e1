// The controller_mutation_rate token bucket (server/quota/controller_mutation_quota.h,
// KIP-599): a full start, strict refusal only once below zero, the permissive
// throttle, refill, giving back; and who backs off from a throttle (KIP-219).
#include "server/quota/controller_mutation_quota.h"

#include <gtest/gtest.h>

#include "server/quota/client_throttle.h"

namespace samsa::server::quota {
namespace {

using entity = metadata::client_quota_entity;

metadata::metadata_image with_rate(double rate) {
    metadata::metadata_image img;
    img.client_quotas[entity{{"client-id", "app"}}]["controller_mutation_rate"] = rate;
    return img;
}

// 10 partitions/s over 2 one-second samples: a burst of 20.
controller_mutation_buckets two_samples() {
    return controller_mutation_buckets(2, 1000);
}

TEST(controller_mutation_buckets,
     a_new_bucket_is_full_and_strict_lets_a_request_take_it_below_zero) {
    auto buckets = two_samples();
    const auto img = with_rate(10);
    auto got = buckets.take(img, "ANONYMOUS", "app", 15, true, 1000);
    EXPECT_TRUE(got.accepted);
    EXPECT_EQ(got.throttle_ms, 0);
    // 5 left: a topic of 30 still goes through (the bucket is not below zero).
    got = buckets.take(img, "ANONYMOUS", "app", 30, true, 1000);
    EXPECT_TRUE(got.accepted);
    EXPECT_EQ(got.throttle_ms, 0);
    // -25: refused, told to wait until it refills to zero (2.5 s at 10/s).
    got = buckets.take(img, "ANONYMOUS", "app", 1, true, 1000);
    EXPECT_FALSE(got.accepted);
    EXPECT_EQ(got.throttle_ms, 2500);
    // Refilled 10 a second later: still -15.
    got = buckets.take(img, "ANONYMOUS", "app", 1, true, 2000);
    EXPECT_FALSE(got.accepted);
    EXPECT_EQ(got.throttle_ms, 1500);
    // Back at zero 2.5 s after: accepted again.
    EXPECT_TRUE(buckets.take(img, "ANONYMOUS", "app", 1, true, 3500).accepted);
}

TEST(controller_mutation_buckets, permissive_always_takes_and_throttles_below_zero) {
    auto buckets = two_samples();
    const auto img = with_rate(10);
    auto got = buckets.take(img, "ANONYMOUS", "app", 20, false, 1000);
    EXPECT_TRUE(got.accepted);
    EXPECT_EQ(got.throttle_ms, 0);
    got = buckets.take(img, "ANONYMOUS", "app", 5, false, 1000);
    EXPECT_TRUE(got.accepted);
    EXPECT_EQ(got.throttle_ms, 500);
}

TEST(controller_mutation_buckets, refill_stops_at_the_burst_and_giving_back_restores) {
    auto buckets = two_samples();
    const auto img = with_rate(10);
    EXPECT_TRUE(buckets.take(img, "ANONYMOUS", "app", 20, true, 1000).accepted);
    // An hour idle refills to the burst of 20, no more.
    EXPECT_TRUE(buckets.take(img, "ANONYMOUS", "app", 20, true, 3'601'000).accepted);
    EXPECT_TRUE(buckets.take(img, "ANONYMOUS", "app", 1, true, 3'601'000).accepted);
    EXPECT_FALSE(buckets.take(img, "ANONYMOUS", "app", 1, true, 3'601'000).accepted);
    buckets.give_back(img, "ANONYMOUS", "app", 2, 3'601'000);
    EXPECT_TRUE(buckets.take(img, "ANONYMOUS", "app", 1, true, 3'601'000).accepted);
}

TEST(controller_mutation_buckets, no_quota_means_no_bucket) {
    auto buckets = two_samples();
    const auto img = with_rate(10);
    for (int i = 0; i < 5; ++i) {
        auto got = buckets.take(img, "ANONYMOUS", "other", 1000, true, 1000);
        EXPECT_TRUE(got.accepted);
        EXPECT_EQ(got.throttle_ms, 0);
    }
    EXPECT_TRUE(buckets.take(metadata::metadata_image{}, "u", "app", 1e9, true, 0).accepted);
}

TEST(client_throttle, follows_kafkas_should_client_throttle_per_api) {
    EXPECT_FALSE(client_backs_off(0, 5));  // Produce
    EXPECT_TRUE(client_backs_off(0, 6));
    EXPECT_FALSE(client_backs_off(1, 7));  // Fetch
    EXPECT_TRUE(client_backs_off(1, 8));
    EXPECT_FALSE(client_backs_off(19, 2));  // CreateTopics
    EXPECT_TRUE(client_backs_off(19, 3));
    EXPECT_TRUE(client_backs_off(44, 0));   // IncrementalAlterConfigs
    EXPECT_FALSE(client_backs_off(68, 1));  // ConsumerGroupHeartbeat: never
    EXPECT_FALSE(client_backs_off(17, 1));  // SaslHandshake: never
}

}  // namespace
}  // namespace samsa::server::quota
