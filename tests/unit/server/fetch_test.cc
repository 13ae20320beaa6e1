// Fetch (key 1) against the in-process broker: records produced come back;
// unknown topics by name and by id, partitions beyond the count, offsets out
// of range, leader epochs ahead of or behind the leader's, and fetch session
// errors (KIP-227) get the error codes Kafka answers.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"

namespace samsa::server::test {
namespace {

using protocol::fetch_request;
using protocol::fetch_response;
using partition_data = fetch_response::fetchable_topic_response::partition_data;

class fetch_test : public broker_test {};

fetch_request::fetch_topic::fetch_partition part(int32_t partition, int64_t offset,
                                                 int32_t current_leader_epoch = -1) {
    fetch_request::fetch_topic::fetch_partition p;
    p.partition = partition;
    p.fetch_offset = offset;
    p.current_leader_epoch = current_leader_epoch;
    p.partition_max_bytes = 1 << 20;
    return p;
}

// A sessionless consumer fetch that does not wait.
fetch_request request(const std::string& topic, const uuid& id,
                      fetch_request::fetch_topic::fetch_partition p) {
    fetch_request req;
    req.replica_id = no_node;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = 1 << 20;
    req.session_id = 0;
    req.session_epoch = -1;
    auto& t = req.topics.emplace_back();
    t.topic = topic;
    t.topic_id = id;
    t.partitions.push_back(p);
    return req;
}

// The only partition of a one-partition answer.
partition_data only(const fetch_response& resp) {
    if (resp.responses.size() != 1 || resp.responses[0].partitions.size() != 1) {
        ADD_FAILURE() << "expected one partition in the answer, error_code="
                      << error_name(error_code(resp.error_code));
        return {};
    }
    return resp.responses[0].partitions[0];
}

TEST_F(fetch_test, returns_produced_records_by_topic_id) {
    const auto name = unique_name("fetch-ok");
    const uuid id = broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 4).error_code, error_code::none);
    auto resp = broker().call<fetch_response>(request("", id, part(0, 0)), 13);
    EXPECT_ERROR(resp.error_code, error_code::none);
    auto p = only(resp);
    EXPECT_ERROR(p.error_code, error_code::none);
    EXPECT_EQ(p.high_watermark, 4);
    EXPECT_EQ(p.log_start_offset, 0);
    EXPECT_GT(p.records.size(), 0u);
}

TEST_F(fetch_test, returns_produced_records_by_name_before_v13) {
    const auto name = unique_name("fetch-by-name");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 2).error_code, error_code::none);
    auto p = only(broker().call<fetch_response>(request(name, {}, part(0, 0)), 12));
    EXPECT_ERROR(p.error_code, error_code::none);
    EXPECT_EQ(p.high_watermark, 2);
    EXPECT_GT(p.records.size(), 0u);
}

// KIP-110: zstd came with Fetch v10; an older consumer of a zstd topic is told
// so rather than sent batches it cannot read.
TEST_F(fetch_test, a_zstd_topic_before_v10_is_unsupported_compression_type) {
    const auto name = unique_name("fetch-zstd");
    broker().create_topic(name, 1, 1, {{"compression.type", "zstd"}});
    ASSERT_ERROR(broker().produce(name, 0, 2).error_code, error_code::none);
    auto old = only(broker().call<fetch_response>(request(name, {}, part(0, 0)), 9));
    EXPECT_ERROR(old.error_code, error_code::unsupported_compression_type);
    EXPECT_EQ(old.records.size(), 0u);
    auto v10 = only(broker().call<fetch_response>(request(name, {}, part(0, 0)), 10));
    EXPECT_ERROR(v10.error_code, error_code::none);
    EXPECT_GT(v10.records.size(), 0u);
}

TEST_F(fetch_test, fetch_at_log_end_is_empty) {
    const auto name = unique_name("fetch-end");
    const uuid id = broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 2).error_code, error_code::none);
    auto p = only(broker().call<fetch_response>(request("", id, part(0, 2)), 13));
    EXPECT_ERROR(p.error_code, error_code::none);
    EXPECT_EQ(p.records.size(), 0u);
}

TEST_F(fetch_test, unknown_topic_name_is_unknown_topic_or_partition) {
    auto p = only(
        broker().call<fetch_response>(request(unique_name("fetch-missing"), {}, part(0, 0)), 12));
    EXPECT_ERROR(p.error_code, error_code::unknown_topic_or_partition);
}

TEST_F(fetch_test, unknown_topic_id_is_unknown_topic_id) {
    auto p = only(broker().call<fetch_response>(request("", uuid::random(), part(0, 0)), 13));
    EXPECT_ERROR(p.error_code, error_code::unknown_topic_id);
}

TEST_F(fetch_test, partition_beyond_count_is_unknown_topic_or_partition) {
    const auto name = unique_name("fetch-partition");
    const uuid id = broker().create_topic(name);
    auto p = only(broker().call<fetch_response>(request("", id, part(3, 0)), 13));
    EXPECT_ERROR(p.error_code, error_code::unknown_topic_or_partition);
}

TEST_F(fetch_test, offset_beyond_log_end_is_offset_out_of_range) {
    const auto name = unique_name("fetch-oor");
    const uuid id = broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 2).error_code, error_code::none);
    auto p = only(broker().call<fetch_response>(request("", id, part(0, 100)), 13));
    EXPECT_ERROR(p.error_code, error_code::offset_out_of_range);
    EXPECT_EQ(p.records.size(), 0u);
}

TEST_F(fetch_test, negative_offset_is_offset_out_of_range) {
    const auto name = unique_name("fetch-neg");
    const uuid id = broker().create_topic(name);
    auto p = only(broker().call<fetch_response>(request("", id, part(0, -5)), 13));
    EXPECT_ERROR(p.error_code, error_code::offset_out_of_range);
}

TEST_F(fetch_test, leader_epoch_ahead_is_unknown_leader_epoch) {
    const auto name = unique_name("fetch-epoch-ahead");
    const uuid id = broker().create_topic(name);
    auto p = only(broker().call<fetch_response>(request("", id, part(0, 0, 1000)), 13));
    EXPECT_ERROR(p.error_code, error_code::unknown_leader_epoch);
}

TEST_F(fetch_test, unknown_session_is_fetch_session_id_not_found) {
    const auto name = unique_name("fetch-session");
    const uuid id = broker().create_topic(name);
    auto req = request("", id, part(0, 0));
    req.session_id = 987654321;
    req.session_epoch = 1;
    auto resp = broker().call<fetch_response>(req, 13);
    EXPECT_ERROR(resp.error_code, error_code::fetch_session_id_not_found);
}

TEST_F(fetch_test, wrong_session_epoch_is_invalid_fetch_session_epoch) {
    const auto name = unique_name("fetch-session-epoch");
    const uuid id = broker().create_topic(name);
    auto req = request("", id, part(0, 0));
    req.session_id = 0;
    req.session_epoch = 0;  // a new session
    auto created = broker().call<fetch_response>(req, 13);
    ASSERT_ERROR(created.error_code, error_code::none);
    ASSERT_NE(created.session_id, 0) << "the broker made no session";
    fetch_request next;
    next.replica_id = no_node;
    next.max_bytes = 1 << 20;
    next.session_id = created.session_id;
    next.session_epoch = 7;  // 1 expected
    auto resp = broker().call<fetch_response>(next, 13);
    EXPECT_ERROR(resp.error_code, error_code::invalid_fetch_session_epoch);
}

TEST_F(fetch_test, incremental_fetch_continues_a_session) {
    const auto name = unique_name("fetch-session-next");
    const uuid id = broker().create_topic(name);
    auto req = request("", id, part(0, 0));
    req.session_epoch = 0;
    auto created = broker().call<fetch_response>(req, 13);
    ASSERT_ERROR(created.error_code, error_code::none);
    ASSERT_NE(created.session_id, 0);
    fetch_request next;
    next.replica_id = no_node;
    next.max_bytes = 1 << 20;
    next.session_id = created.session_id;
    next.session_epoch = 1;
    auto resp = broker().call<fetch_response>(next, 13);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_EQ(resp.session_id, created.session_id);
}

TEST_F(fetch_test, truncated_body_closes_connection) {
    protocol::writer w;
    request("t", {}, part(0, 0)).encode(w, 12);
    bytes body = w.buffer();
    body.resize(body.size() - 5);
    EXPECT_TRUE(broker().call_raw(broker_fixture::frame(1, 12, body)).closed);
}

}  // namespace
}  // namespace samsa::server::test
