// The controller id Metadata and DescribeCluster show: always a broker the
// same response lists on this listener, or -1 (which makes librdkafka refresh
// its metadata), never an id the client has no address for.
#include "server/quorum/visible_controller.h"

#include <gtest/gtest.h>

namespace samsa::server::quorum {
namespace {

metadata::metadata_image image_with(std::vector<std::pair<int32_t, bool>> brokers) {
    metadata::metadata_image image;
    for (auto [id, fenced] : brokers) {
        auto& b = image.brokers[node_id{id}];
        b.id = node_id{id};
        b.fenced = fenced;
        b.endpoints.push_back({"PLAINTEXT", "127.0.0.1", static_cast<uint16_t>(9000 + id), 0});
    }
    return image;
}

// The id as a number, for the expectations below.
int32_t visible(const metadata::metadata_image& image, const std::string& listener,
                int32_t active_controller, int32_t self) {
    return visible_controller_id(image, listener, node_id{active_controller}, node_id{self})
        .value();
}

TEST(visible_controller_test, the_active_controller_when_it_is_a_reachable_broker) {
    auto image = image_with({{1, false}, {2, false}, {3, false}});
    EXPECT_EQ(visible(image, "PLAINTEXT", 2, 3), 2);
}

TEST(visible_controller_test, this_node_while_the_controller_is_fenced_or_unknown) {
    auto image = image_with({{1, true}, {2, false}, {3, false}});
    EXPECT_EQ(visible(image, "PLAINTEXT", 1, 3), 3);
    EXPECT_EQ(visible(image, "PLAINTEXT", -1, 3), 3);
}

TEST(visible_controller_test, another_listed_broker_while_this_node_is_still_fenced) {
    auto image = image_with({{1, true}, {2, false}, {3, true}});
    EXPECT_EQ(visible(image, "PLAINTEXT", 1, 3), 2);
}

TEST(visible_controller_test, a_broker_without_this_listener_is_never_named) {
    auto image = image_with({{1, false}, {2, false}});
    image.brokers[node_id{1}].endpoints[0].listener_name = "INTERNAL";
    EXPECT_EQ(visible(image, "PLAINTEXT", 1, 1), 2);
    EXPECT_EQ(visible(image, "SSL", 1, 1), -1);
}

TEST(visible_controller_test, minus_one_while_no_broker_is_unfenced) {
    EXPECT_EQ(visible(image_with({{1, true}, {2, true}}), "PLAINTEXT", 1, 2), -1);
    EXPECT_EQ(visible(image_with({}), "PLAINTEXT", -1, 1), -1);
}

}  // namespace
}  // namespace samsa::server::quorum
