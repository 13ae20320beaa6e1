// raft_message <-> Kafka wire messages: what one replica encodes, another decodes
// to the same message (requests through the request path, answers through the
// response path, in the versions the transport uses and in every inbound one).
#include "raft/raft_wire.h"

#include <gtest/gtest.h>

#include "protocol/generated/vote_request.h"

namespace samsa::raft {
namespace {

bytes value(std::string_view s) {
    return bytes(s.begin(), s.end());
}

TEST(raft_wire, requests_round_trip) {
    std::vector<raft_message> requests = {
        vote_request{0, raft_epoch{7}, node_id{2}, {raft_offset{40}, raft_epoch{6}}, false},
        vote_request{0, raft_epoch{8}, node_id{2}, {raft_offset{40}, raft_epoch{6}}, true},
        begin_quorum_epoch_request{0, {node_id{3}, raft_epoch{9}}},
        end_quorum_epoch_request{0, {node_id{1}, raft_epoch{4}}, {node_id{2}, node_id{3}}},
        fetch_snapshot_request{
            0, node_id{2}, raft_epoch{5}, {raft_offset{100}, raft_epoch{4}}, 512, 4096},
    };
    for (const auto& m : requests) {
        auto w = encode_raft_request(m, "cluster-1");
        std::optional<std::string> cluster;
        auto back = decode_raft_request(w.api_key, w.api_version, w.body, cluster);
        ASSERT_TRUE(back) << describe(m);
        EXPECT_EQ(describe(*back), describe(m));
        EXPECT_EQ(cluster, "cluster-1");
        EXPECT_TRUE(is_raft_api(w.api_key));
    }
}

TEST(raft_wire, fetch_request_round_trips_through_the_fetch_schema) {
    fetch_request f{0,       node_id{3},  raft_epoch{5}, raft_offset{17}, raft_epoch{4},
                    1 << 20, raft_ms{500}};
    auto w = encode_raft_request(f, "c");
    EXPECT_EQ(w.api_key, 1);
    protocol::fetch_request decoded;
    protocol::reader r(w.body);
    decoded.decode(r, w.api_version);
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(is_metadata_fetch(decoded));
    EXPECT_EQ(describe(raft_fetch_from_wire(decoded)), describe(f));
}

TEST(raft_wire, responses_round_trip) {
    std::vector<raft_message> answers = {
        vote_response{11, error_code::none, {node_id{2}, raft_epoch{7}}, true},
        begin_quorum_epoch_response{
            12, error_code::fenced_leader_epoch, {node_id{3}, raft_epoch{9}}},
        end_quorum_epoch_response{13, error_code::none, {no_node, raft_epoch{4}}},
        fetch_snapshot_response{14,
                                error_code::none,
                                {node_id{1}, raft_epoch{5}},
                                {raft_offset{100}, raft_epoch{4}},
                                3,
                                0,
                                value("abc")},
    };
    for (const auto& m : answers) {
        for (int16_t version : {0, 1}) {
            bytes body = encode_raft_response(m, version);
            auto back =
                decode_raft_response(raft_api_key(m), version, body,
                                     std::visit([](auto& v) { return v.correlation_id; }, m));
            ASSERT_TRUE(back) << describe(m);
            EXPECT_EQ(describe(*back), describe(m)) << "v" << version;
        }
    }
}

TEST(raft_wire, fetch_response_carries_batches_and_kraft_tags) {
    fetch_response f;
    f.correlation_id = 5;
    f.current_leader = {node_id{1}, raft_epoch{3}};
    f.high_watermark = raft_offset{10};
    f.log_start_offset = raft_offset{2};
    f.diverging_epoch = offset_and_epoch{raft_offset{8}, raft_epoch{2}};
    f.records.push_back(raft_batch{
        raft_offset{8}, raft_epoch{3}, control_record_type::none, {value("a"), value("bc")}});
    f.records.push_back(
        raft_batch{raft_offset{10}, raft_epoch{3}, control_record_type::none, {value("d")}});
    protocol::fetch_response w = raft_fetch_to_wire(f);
    protocol::writer out;
    w.encode(out, 13);
    auto back = decode_raft_response(1, 13, out.buffer(), 5);
    ASSERT_TRUE(back);
    auto* got = std::get_if<fetch_response>(&*back);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->high_watermark, f.high_watermark);
    EXPECT_EQ(got->log_start_offset, f.log_start_offset);
    EXPECT_EQ(got->current_leader, f.current_leader);
    EXPECT_EQ(got->diverging_epoch, f.diverging_epoch);
    EXPECT_FALSE(got->snapshot_id);
    EXPECT_EQ(got->records, f.records);
}

TEST(raft_wire, a_response_level_error_reaches_the_core) {
    bytes body = encode_raft_error_response(52, 0, error_code::inconsistent_cluster_id);
    auto back = decode_raft_response(52, 0, body, 9);
    ASSERT_TRUE(back);
    auto* v = std::get_if<vote_response>(&*back);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->error, error_code::inconsistent_cluster_id);
    EXPECT_EQ(v->correlation_id, 9);
}

// KIP-996: a pre-vote needs VoteRequest v2; an older version has no PreVote
// field, so whatever comes in it is a vote.
TEST(raft_wire, votes_go_out_in_v2_and_older_versions_are_votes) {
    vote_request pre{0, raft_epoch{8}, node_id{2}, {raft_offset{40}, raft_epoch{6}}, true};
    auto w = encode_raft_request(pre, "c");
    EXPECT_EQ(w.api_version, 2);
    protocol::vote_request v1;
    v1.cluster_id = "c";
    auto& t = v1.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    auto& p = t.partitions.emplace_back();
    p.candidate_epoch = 8;
    p.candidate_id = ::samsa::node_id{2};
    p.pre_vote = true;  // not in v1: not written
    protocol::writer out;
    v1.encode(out, 1);
    std::optional<std::string> cluster;
    auto back = decode_raft_request(52, 1, out.buffer(), cluster);
    ASSERT_TRUE(back);
    auto* v = std::get_if<vote_request>(&*back);
    ASSERT_NE(v, nullptr);
    EXPECT_FALSE(v->pre_vote);
}

TEST(raft_wire, another_partition_or_garbage_is_refused) {
    protocol::vote_request w;
    auto& t = w.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    t.partitions.resize(2);
    protocol::writer out;
    w.encode(out, 0);
    std::optional<std::string> cluster;
    EXPECT_FALSE(decode_raft_request(52, 0, out.buffer(), cluster));
    bytes garbage = value("\x01\x02");
    EXPECT_FALSE(decode_raft_request(52, 0, garbage, cluster));
    EXPECT_FALSE(decode_raft_response(53, 0, garbage, 1));
}

}  // namespace
}  // namespace samsa::raft
