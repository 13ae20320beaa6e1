#include "server/connection_quotas.h"

#include <gtest/gtest.h>

namespace samsa::server {
namespace {

TEST(connection_quotas, per_ip_limit_counts_each_address_apart) {
    connection_quotas q({INT32_MAX, 2, {}, 500});
    std::string why;
    EXPECT_TRUE(q.try_acquire("10.0.0.1", why));
    EXPECT_TRUE(q.try_acquire("10.0.0.1", why));
    EXPECT_FALSE(q.try_acquire("10.0.0.1", why));
    EXPECT_NE(why.find("max.connections.per.ip"), std::string::npos) << why;
    EXPECT_TRUE(q.try_acquire("10.0.0.2", why));
    q.release("10.0.0.1");
    EXPECT_TRUE(q.try_acquire("10.0.0.1", why));
    EXPECT_EQ(q.connections(), 3);
    EXPECT_EQ(q.connections_from("10.0.0.1"), 2);
}

TEST(connection_quotas, overrides_replace_the_per_ip_limit_and_total_bounds_all) {
    connection_quotas q({3, 1, {{"127.0.0.1", 5}, {"10.9.9.9", 0}}, 500});
    std::string why;
    EXPECT_FALSE(q.try_acquire("10.9.9.9", why));
    EXPECT_EQ(q.connections_from("10.9.9.9"), 0);
    EXPECT_TRUE(q.try_acquire("127.0.0.1", why));
    EXPECT_TRUE(q.try_acquire("127.0.0.1", why));
    EXPECT_TRUE(q.try_acquire("127.0.0.1", why));
    EXPECT_FALSE(q.try_acquire("127.0.0.1", why));
    EXPECT_NE(why.find("max.connections=3"), std::string::npos) << why;
    q.release("127.0.0.1");
    EXPECT_TRUE(q.try_acquire("10.0.0.7", why));
    EXPECT_FALSE(q.try_acquire("10.0.0.7", why));
}

TEST(connection_quotas, queued_max_requests_bounds_requests_in_progress) {
    connection_quotas q({INT32_MAX, INT32_MAX, {}, 2});
    EXPECT_TRUE(q.may_take_request());
    q.request_started();
    q.request_started();
    EXPECT_FALSE(q.may_take_request());
    q.request_done();
    EXPECT_TRUE(q.may_take_request());
}

TEST(parse_per_ip_overrides, reads_kafkas_form_and_names_a_bad_entry) {
    auto ok = parse_per_ip_overrides("127.0.0.1:200, [::1]:5,broker.example.com:0");
    ASSERT_TRUE(ok) << ok.err().message;
    EXPECT_EQ(ok->at("127.0.0.1"), 200);
    EXPECT_EQ(ok->at("::1"), 5);
    EXPECT_EQ(ok->at("broker.example.com"), 0);
    EXPECT_TRUE(parse_per_ip_overrides("")->empty());
    for (const char* bad : {"127.0.0.1", "host:many", ":3", "h:-1"}) {
        auto r = parse_per_ip_overrides(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.err().code, error_code::invalid_config);
        EXPECT_NE(r.err().message.find("max.connections.per.ip.overrides"), std::string::npos);
    }
}

}  // namespace
}  // namespace samsa::server
