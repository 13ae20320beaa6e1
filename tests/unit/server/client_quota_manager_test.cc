// Client byte-rate quotas on a broker (server/quota/): which quota applies
// to a user and client id, who shares its rate, and the throttle time Kafka's
// formula gives (the sampled rate itself: tests/unit/common/sampled_rate_test.cc).
#include "server/quota/client_quota_manager.h"

#include <gtest/gtest.h>

namespace samsa::server::quota {
namespace {

using entity = metadata::client_quota_entity;
const std::string produce = "producer_byte_rate";

metadata::metadata_image with(std::vector<std::pair<entity, double>> quotas,
                              const std::string& key = produce) {
    metadata::metadata_image img;
    for (auto& [e, v] : quotas) {
        img.client_quotas[e][key] = v;
    }
    return img;
}

TEST(find_client_quota, the_most_specific_entity_holding_the_key_applies) {
    const std::optional<std::string> def;
    auto img = with({
        {{{"user", "alice"}, {"client-id", "app"}}, 1},
        {{{"user", "alice"}, {"client-id", def}}, 2},
        {{{"user", "alice"}}, 3},
        {{{"user", def}, {"client-id", "app"}}, 4},
        {{{"user", def}, {"client-id", def}}, 5},
        {{{"user", def}}, 6},
        {{{"client-id", "app"}}, 7},
        {{{"client-id", def}}, 8},
    });
    auto bound = [&](const std::string& u, const std::string& c) {
        auto q = find_client_quota(img, produce, u, c);
        return q ? q->bound : -1;
    };
    EXPECT_EQ(bound("alice", "app"), 1);
    EXPECT_EQ(bound("alice", "other"), 2);
    EXPECT_EQ(bound("bob", "app"), 4);
    EXPECT_EQ(bound("bob", "other"), 5);

    img.client_quotas.erase({{"user", "alice"}, {"client-id", def}});
    EXPECT_EQ(bound("alice", "other"), 3);
    img.client_quotas.erase({{"user", def}, {"client-id", def}});
    EXPECT_EQ(bound("bob", "other"), 6);
    img.client_quotas.erase({{"user", def}});
    img.client_quotas.erase({{"user", "alice"}});
    EXPECT_EQ(bound("alice", "other"), 8);
    img.client_quotas.erase({{"user", def}, {"client-id", "app"}});
    EXPECT_EQ(bound("bob", "app"), 7);
    img.client_quotas.erase({{"client-id", def}});
    EXPECT_EQ(bound("bob", "other"), -1);
    // Another key's quota does not apply.
    EXPECT_FALSE(find_client_quota(img, "consumer_byte_rate", "alice", "app"));
}

TEST(find_client_quota, a_rate_is_kept_under_what_the_entity_names) {
    const std::optional<std::string> def;
    auto user = with({{{{"user", "alice"}}, 10}});
    auto q = find_client_quota(user, produce, "alice", "c1");
    ASSERT_TRUE(q);
    EXPECT_EQ(q->user, "alice");
    EXPECT_EQ(q->client_id, "");  // shared by all of alice's client ids

    auto default_client = with({{{{"client-id", def}}, 10}});
    q = find_client_quota(default_client, produce, "alice", "c1");
    ASSERT_TRUE(q);
    EXPECT_EQ(q->user, "");
    EXPECT_EQ(q->client_id, "c1");  // each client id its own
}

TEST(client_quota_manager, throttles_by_kafkas_formula_once_over_the_quota) {
    client_quota_manager m(11, 1000);
    auto img = with({{{{"client-id", "app"}}, 100}});
    // 1000 bytes over the ten-second minimum window is 100 B/s: within.
    EXPECT_EQ(m.record(img, produce, "ANONYMOUS", "app", 1000, 0), 0);
    // 2000 is 200 B/s: (200 - 100) / 100 * 10 s.
    EXPECT_EQ(m.record(img, produce, "ANONYMOUS", "app", 1000, 0), 10000);
    // Another client id is not this one's quota.
    EXPECT_EQ(m.record(img, produce, "ANONYMOUS", "other", 1e9, 0), 0);
    EXPECT_EQ(m.rates(), 1u);
    // Once every sample has aged out the client starts afresh.
    EXPECT_EQ(m.record(img, produce, "ANONYMOUS", "app", 500, 20000), 0);
}

TEST(client_quota_manager, a_user_quota_is_shared_and_a_default_one_is_not) {
    const std::optional<std::string> def;
    client_quota_manager m(11, 1000);
    auto shared = with({{{{"user", "alice"}}, 100}});
    EXPECT_EQ(m.record(shared, produce, "alice", "c1", 1000, 0), 0);
    EXPECT_GT(m.record(shared, produce, "alice", "c2", 1000, 0), 0);

    client_quota_manager own(11, 1000);
    auto each = with({{{{"user", def}}, 100}});
    EXPECT_EQ(own.record(each, produce, "alice", "c1", 1000, 0), 0);
    EXPECT_EQ(own.record(each, produce, "bob", "c1", 1000, 0), 0);
    EXPECT_EQ(own.rates(), 2u);
}

TEST(client_quota_manager, a_fetch_may_carry_the_quota_over_all_but_one_window) {
    client_quota_manager m(11, 2000);
    auto img = with({{{{"client-id", "c"}}, 1000}}, "consumer_byte_rate");
    EXPECT_EQ(m.max_value_in_window(img, "consumer_byte_rate", "u", "c"), 20000);
    EXPECT_EQ(m.max_value_in_window(img, "consumer_byte_rate", "u", "d"), std::nullopt);
    EXPECT_EQ(m.max_value_in_window(img, produce, "u", "c"), std::nullopt);
}

TEST(quota_user, is_the_principal_name) {
    EXPECT_EQ(quota_user("User:alice"), "alice");
    EXPECT_EQ(quota_user("User:ANONYMOUS"), "ANONYMOUS");
    EXPECT_EQ(quota_user("CN=x"), "CN=x");
}

}  // namespace
}  // namespace samsa::server::quota
