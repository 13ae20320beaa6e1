// The data path's strong types: none converts into another nor from a bare
// integer, each is explicit to build and to leave, and each logs and hashes
// as its number.
#include "common/kafka_types.h"

#include <gtest/gtest.h>

#include <type_traits>
#include <unordered_set>

namespace samsa {
namespace {

template <typename From, typename To>
constexpr bool converts = std::is_convertible_v<From, To>;

static_assert(!converts<int64_t, kafka_offset>, "an offset is built explicitly");
static_assert(!converts<kafka_offset, int64_t>, "and left through value()");
static_assert(!converts<partition_id, node_id>, "a partition id is not a node id");
static_assert(!converts<node_id, partition_id>);
static_assert(!converts<leader_epoch, producer_epoch>);
static_assert(!converts<producer_id, kafka_offset>, "both are int64 and still apart");
static_assert(!converts<sequence, leader_epoch>);
static_assert(std::is_constructible_v<kafka_offset, int64_t>);

TEST(kafka_types, offsets_move_by_counts_and_differ_by_counts) {
    const kafka_offset base{100};
    EXPECT_EQ((base + 5).value(), 105);
    EXPECT_EQ((base - 1).value(), 99);
    EXPECT_EQ(kafka_offset{110} - base, 10);
    EXPECT_LT(base, kafka_offset{101});
}

TEST(kafka_types, sentinels) {
    EXPECT_FALSE(no_leader_epoch.is_known());
    EXPECT_TRUE(leader_epoch{0}.is_known());
    EXPECT_FALSE(no_node.is_valid());
    EXPECT_FALSE(no_producer_id.is_valid());
    EXPECT_EQ((epoch_end_offset{}), (epoch_end_offset{no_leader_epoch, kafka_offset{-1}}));
}

TEST(kafka_types, log_and_hash_as_their_numbers) {
    EXPECT_EQ(fmt::format("offset={} epoch={} node={} pid={}", kafka_offset{17}, leader_epoch{3},
                          node_id{2}, producer_id{4000}),
              "offset=17 epoch=3 node=2 pid=4000");
    std::unordered_set<node_id> nodes{node_id{1}, node_id{2}, node_id{1}};
    EXPECT_EQ(nodes.size(), 2u);
}

}  // namespace
}  // namespace samsa
