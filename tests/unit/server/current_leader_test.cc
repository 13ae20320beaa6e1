// KIP-951's leader hints (server/handlers/current_leader.h): the image's
// leader and epoch of a partition, and the leader's endpoint on the client's
// listener, listed once per response.
#include "server/handlers/current_leader.h"

#include <gtest/gtest.h>

#include "protocol/generated/fetch_response.h"
#include "protocol/generated/produce_response.h"

namespace samsa::server::handlers {
namespace {

metadata::metadata_image image_with_topic() {
    metadata::metadata_image image;
    auto& b2 = image.brokers[node_id{2}];
    b2.id = node_id{2};
    b2.rack = "r2";
    b2.endpoints.push_back({"PLAINTEXT", "10.0.0.2", 9092, 0});
    auto& b3 = image.brokers[node_id{3}];
    b3.id = node_id{3};
    b3.endpoints.push_back({"INTERNAL", "10.0.0.3", 9093, 0});
    auto t = std::make_shared<metadata::topic_image>();
    t->name = "t";
    t->partitions.resize(2);
    t->partitions[0].partition = 0;
    t->partitions[0].leader = node_id{2};
    t->partitions[0].leader_epoch = 7;
    t->partitions[1].partition = 1;
    t->partitions[1].leader = node_id{3};
    t->partitions[1].leader_epoch = 4;
    image.topics_by_name["t"] = t;
    return image;
}

TEST(current_leader_test, the_images_leader_and_epoch_or_none) {
    const auto image = image_with_topic();
    auto l = current_leader_of(image, "t", 0);
    EXPECT_EQ(l.id.value(), 2);
    EXPECT_EQ(l.epoch, 7);
    for (auto [topic, p] : {std::pair<std::string, int32_t>{"t", 2}, {"t", -1}, {"gone", 0}}) {
        auto none = current_leader_of(image, topic, p);
        EXPECT_EQ(none.id, no_node);
        EXPECT_EQ(none.epoch, -1);
    }
}

TEST(current_leader_test, the_leaders_endpoint_on_this_listener_once) {
    const auto image = image_with_topic();
    protocol::produce_response resp;
    add_leader_endpoint(resp.node_endpoints, image, node_id{2}, "PLAINTEXT");
    add_leader_endpoint(resp.node_endpoints, image, node_id{2}, "PLAINTEXT");
    // Broker 3 has no PLAINTEXT endpoint; -1 and unknown ids are no one.
    add_leader_endpoint(resp.node_endpoints, image, node_id{3}, "PLAINTEXT");
    add_leader_endpoint(resp.node_endpoints, image, node_id{-1}, "PLAINTEXT");
    add_leader_endpoint(resp.node_endpoints, image, node_id{9}, "PLAINTEXT");
    ASSERT_EQ(resp.node_endpoints.size(), 1u);
    EXPECT_EQ(resp.node_endpoints[0].node_id, node_id{2});
    EXPECT_EQ(resp.node_endpoints[0].host, "10.0.0.2");
    EXPECT_EQ(resp.node_endpoints[0].port, 9092);
    EXPECT_EQ(resp.node_endpoints[0].rack, "r2");
    protocol::fetch_response fetch;
    add_leader_endpoint(fetch.node_endpoints, image, node_id{3}, "INTERNAL");
    ASSERT_EQ(fetch.node_endpoints.size(), 1u);
    EXPECT_EQ(fetch.node_endpoints[0].host, "10.0.0.3");
    EXPECT_FALSE(fetch.node_endpoints[0].rack);
}

}  // namespace
}  // namespace samsa::server::handlers
