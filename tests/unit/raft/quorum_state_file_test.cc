#include "raft/quorum_state_file.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace samsa::raft {
namespace {

TEST(quorum_state_file, writes_kafkas_json_shape) {
    election_state s{
        raft_epoch{7}, node_id{2}, no_node, {node_id{1}, node_id{2}, node_id{3}}, "abc"};
    EXPECT_EQ(encode_quorum_state_json(s),
              "{\"clusterId\":\"abc\",\"leaderId\":2,\"leaderEpoch\":7,\"votedId\":-1,"
              "\"appliedOffset\":0,\"currentVoters\":[{\"voterId\":1},{\"voterId\":2},"
              "{\"voterId\":3}],\"data_version\":0}");
}

TEST(quorum_state_file, round_trips) {
    election_state s{raft_epoch{3}, no_node, node_id{1}, {node_id{1}, node_id{4}}, ""};
    auto d = decode_quorum_state_json(encode_quorum_state_json(s));
    ASSERT_TRUE(d);
    EXPECT_EQ(*d, s);
}

TEST(quorum_state_file, reads_data_version_1_written_by_newer_kafka) {
    auto d = decode_quorum_state_json(
        R"({"leaderId":-1,"leaderEpoch":4,"votedId":3,)"
        R"("votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1})");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->epoch, raft_epoch{4});
    EXPECT_EQ(d->voted, node_id{3});
    EXPECT_TRUE(d->voters.empty());
}

TEST(quorum_state_file, rejects_what_it_does_not_understand) {
    EXPECT_FALSE(decode_quorum_state_json("{\"leaderId\":1}"));
    EXPECT_FALSE(decode_quorum_state_json("not json"));
    EXPECT_FALSE(decode_quorum_state_json(
        R"({"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":7})"));
}

TEST(quorum_state_file, store_reads_nothing_then_what_it_wrote) {
    auto dir =
        std::filesystem::temp_directory_path() / ("samsa-raft-qs-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    file_quorum_state_store store((dir / "quorum-state").string());
    auto first = store.read();
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->has_value());
    election_state s{raft_epoch{5}, node_id{1}, node_id{1}, {node_id{1}}, "c"};
    ASSERT_TRUE(store.write(s));
    auto again = store.read();
    ASSERT_TRUE(again);
    ASSERT_TRUE(again->has_value());
    EXPECT_EQ(**again, s);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace samsa::raft
