// The partition leader Metadata and DescribeTopicPartitions show
// (server/handlers/visible_leader.h): a leader the client can reach on its
// listener, else -1 with Kafka's error for why.
#include "server/handlers/visible_leader.h"

#include <gtest/gtest.h>

namespace samsa::server::handlers {
namespace {

metadata::metadata_image image_with_brokers() {
    metadata::metadata_image image;
    auto& b1 = image.brokers[node_id{1}];
    b1.id = node_id{1};
    b1.endpoints.push_back({"PLAINTEXT", "127.0.0.1", 9001, 0});
    b1.endpoints.push_back({"SSL", "127.0.0.1", 9101, 1});
    auto& b2 = image.brokers[node_id{2}];
    b2.id = node_id{2};
    b2.endpoints.push_back({"PLAINTEXT", "127.0.0.1", 9002, 0});
    return image;
}

TEST(visible_leader_test, a_leader_with_this_listener_is_shown) {
    const auto image = image_with_brokers();
    auto l = visible_leader_of(image, node_id{2}, "PLAINTEXT", true);
    EXPECT_EQ(l.id.value(), 2);
    EXPECT_EQ(l.error, error_code::none);
}

TEST(visible_leader_test, no_leader_or_an_unregistered_one_is_leader_not_available) {
    const auto image = image_with_brokers();
    for (int32_t leader : {-1, 7}) {
        auto l = visible_leader_of(image, node_id{leader}, "PLAINTEXT", true);
        EXPECT_EQ(l.id.value(), -1);
        EXPECT_EQ(l.error, error_code::leader_not_available);
    }
}

TEST(visible_leader_test, a_leader_without_this_listener_is_listener_not_found_from_v6) {
    const auto image = image_with_brokers();
    auto l = visible_leader_of(image, node_id{2}, "SSL", true);
    EXPECT_EQ(l.id.value(), -1);
    EXPECT_EQ(l.error, error_code::listener_not_found);
    auto old = visible_leader_of(image, node_id{2}, "SSL", false);
    EXPECT_EQ(old.id.value(), -1);
    EXPECT_EQ(old.error, error_code::leader_not_available);
    EXPECT_EQ(visible_leader_of(image, node_id{1}, "SSL", true).id, node_id{1});
}

}  // namespace
}  // namespace samsa::server::handlers
