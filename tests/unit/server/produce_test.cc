// Produce (key 0) against the in-process broker: the per-partition error
// codes Kafka answers for unknown topics and partitions, invalid acks,
// batches that fail validation (CRC, count, size, compression for the
// version), internal topics, and acks=0 failures (the connection closes).
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "record/batch_header.h"

namespace samsa::server::test {
namespace {

using protocol::produce_request;
using protocol::produce_response;
using partition_response = produce_response::topic_produce_response::partition_produce_response;

class produce_test : public broker_test {
  protected:
    partition_response send(const std::string& topic, int32_t partition, bytes batch,
                            int16_t acks = -1, int16_t version = 9) {
        _batches.push_back(std::move(batch));
        produce_request req;
        req.acks = acks;
        req.timeout_ms = 30000;
        auto& t = req.topic_data.emplace_back();
        t.name = topic;
        auto& p = t.partition_data.emplace_back();
        p.index = partition;
        p.records = protocol::records::view(_batches.back());
        auto resp = broker().call<produce_response>(req, version);
        if (resp.responses.size() != 1 || resp.responses[0].partition_responses.size() != 1) {
            ADD_FAILURE() << "unexpected response shape";
            return {};
        }
        EXPECT_EQ(resp.responses[0].name, topic);
        EXPECT_EQ(resp.responses[0].partition_responses[0].index, partition);
        return resp.responses[0].partition_responses[0];
    }
    std::vector<bytes> _batches;
};

TEST_F(produce_test, appends_and_answers_base_offsets) {
    const auto name = unique_name("produce-ok");
    broker().create_topic(name);
    auto first = send(name, 0, make_batch(3));
    EXPECT_ERROR(first.error_code, error_code::none);
    EXPECT_EQ(first.base_offset, 0);
    EXPECT_EQ(first.log_start_offset, 0);
    auto second = send(name, 0, make_batch(2));
    EXPECT_ERROR(second.error_code, error_code::none);
    EXPECT_EQ(second.base_offset, 3);
}

TEST_F(produce_test, acks_one_is_answered) {
    const auto name = unique_name("produce-acks1");
    broker().create_topic(name);
    auto r = send(name, 0, make_batch(1), /*acks=*/1);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.base_offset, 0);
}

TEST_F(produce_test, unknown_topic_is_unknown_topic_or_partition) {
    auto r = send(unique_name("produce-missing"), 0, make_batch(1));
    EXPECT_ERROR(r.error_code, error_code::unknown_topic_or_partition);
    EXPECT_EQ(r.base_offset, -1);
}

TEST_F(produce_test, partition_beyond_count_is_unknown_topic_or_partition) {
    const auto name = unique_name("produce-partition");
    broker().create_topic(name, 2);
    EXPECT_ERROR(send(name, 2, make_batch(1)).error_code, error_code::unknown_topic_or_partition);
    EXPECT_ERROR(send(name, -1, make_batch(1)).error_code, error_code::unknown_topic_or_partition);
}

TEST_F(produce_test, invalid_acks_is_invalid_required_acks) {
    const auto name = unique_name("produce-acks");
    broker().create_topic(name);
    EXPECT_ERROR(send(name, 0, make_batch(1), /*acks=*/2).error_code,
                 error_code::invalid_required_acks);
    EXPECT_ERROR(send(name, 0, make_batch(1), /*acks=*/-2).error_code,
                 error_code::invalid_required_acks);
}

TEST_F(produce_test, bad_crc_is_corrupt_message) {
    const auto name = unique_name("produce-crc");
    broker().create_topic(name);
    bytes batch = make_batch(2);
    batch.back() ^= 0xff;  // inside the CRC-covered records
    EXPECT_ERROR(send(name, 0, batch).error_code, error_code::corrupt_message);
}

TEST_F(produce_test, no_batch_is_invalid_record) {
    const auto name = unique_name("produce-empty");
    broker().create_topic(name);
    EXPECT_ERROR(send(name, 0, bytes{}).error_code, error_code::invalid_record);
}

TEST_F(produce_test, two_batches_are_invalid_record) {
    const auto name = unique_name("produce-two");
    broker().create_topic(name);
    bytes two = make_batch(1);
    bytes second = make_batch(1);
    two.insert(two.end(), second.begin(), second.end());
    EXPECT_ERROR(send(name, 0, two).error_code, error_code::invalid_record);
}

TEST_F(produce_test, batch_above_max_message_bytes_is_message_too_large) {
    const auto name = unique_name("produce-large");
    broker().create_topic(name, 1, 1, {{"max.message.bytes", "200"}});
    EXPECT_ERROR(send(name, 0, make_batch(50)).error_code, error_code::message_too_large);
    // A small one still goes in.
    EXPECT_ERROR(send(name, 0, make_batch(1)).error_code, error_code::none);
}

TEST_F(produce_test, zstd_before_v7_is_unsupported_compression_type) {
    const auto name = unique_name("produce-zstd");
    broker().create_topic(name);
    record::batch_options zstd;
    zstd.codec = record::compression::zstd;
    EXPECT_ERROR(send(name, 0, make_batch(3, zstd), -1, /*version=*/6).error_code,
                 error_code::unsupported_compression_type);
    EXPECT_ERROR(send(name, 0, make_batch(3, zstd), -1, /*version=*/7).error_code,
                 error_code::none);
}

TEST_F(produce_test, internal_topic_is_invalid_topic_exception) {
    // FindCoordinator makes sure __consumer_offsets exists.
    protocol::find_coordinator_request fc;
    fc.key_type = 0;
    fc.coordinator_keys = {unique_name("produce-group")};
    broker().call<protocol::find_coordinator_response>(fc, 4);
    ASSERT_TRUE(broker_fixture::wait_until([&] {
        auto md = broker().metadata({"__consumer_offsets"});
        return md.topics.size() == 1 && md.topics[0].error_code == 0;
    }));
    EXPECT_ERROR(send("__consumer_offsets", 0, make_batch(1)).error_code,
                 error_code::invalid_topic_exception);
}

TEST_F(produce_test, acks_zero_failure_closes_connection) {
    bytes batch = make_batch(1);
    produce_request req;
    req.acks = 0;
    auto& t = req.topic_data.emplace_back();
    t.name = unique_name("produce-acks0-missing");
    auto& p = t.partition_data.emplace_back();
    p.index = 0;
    p.records = protocol::records::view(batch);
    protocol::writer w;
    req.encode(w, 9);
    EXPECT_TRUE(broker().call_raw(broker_fixture::frame(0, 9, w.buffer())).closed);
}

TEST_F(produce_test, truncated_body_closes_connection) {
    const auto name = unique_name("produce-truncated");
    bytes batch = make_batch(1);
    produce_request req;
    req.acks = -1;
    auto& t = req.topic_data.emplace_back();
    t.name = name;
    auto& p = t.partition_data.emplace_back();
    p.records = protocol::records::view(batch);
    protocol::writer w;
    req.encode(w, 9);
    bytes body = w.buffer();
    body.resize(body.size() / 2);
    EXPECT_TRUE(broker().call_raw(broker_fixture::frame(0, 9, body)).closed);
}

}  // namespace
}  // namespace samsa::server::test
