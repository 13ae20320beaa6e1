// The Raft room's offset and epoch stay apart from a data partition's: the
// metadata log's offsets are Kafka offsets of __cluster_metadata-0 on disk,
// and crossing between the two is always written out.
#include "raft/raft_types.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace samsa::raft {
namespace {

static_assert(!std::is_convertible_v<raft_offset, kafka_offset>);
static_assert(!std::is_convertible_v<kafka_offset, raft_offset>);
static_assert(!std::is_convertible_v<raft_epoch, leader_epoch>);
static_assert(!std::is_convertible_v<leader_epoch, raft_epoch>);
// The node id is `node.id` in both rooms.
static_assert(std::is_same_v<raft::node_id, samsa::node_id>);

TEST(raft_types, log_as_their_numbers) {
    EXPECT_EQ(fmt::format("{} {} {}", raft_offset{7}, raft_epoch{2}, no_node), "7 2 -1");
}

}  // namespace
}  // namespace samsa::raft
