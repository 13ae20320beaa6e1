// ListOffsets (key 2) against the in-process broker: earliest, latest and
// max-timestamp lookups, and the errors Kafka answers for unknown topics and
// partitions, leader epochs ahead of the leader's, and partitions named twice.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"

namespace samsa::server::test {
namespace {

using protocol::list_offsets_request;
using protocol::list_offsets_response;
using partition_response =
    list_offsets_response::list_offsets_topic_response::list_offsets_partition_response;

constexpr int64_t k_latest = -1;
constexpr int64_t k_earliest = -2;
constexpr int64_t k_max_timestamp = -3;

class list_offsets_test : public broker_test {
  protected:
    list_offsets_response list(const std::string& topic, std::vector<int32_t> partitions,
                               int64_t timestamp, int32_t current_leader_epoch = -1,
                               int16_t version = 8) {
        list_offsets_request req;
        req.replica_id = no_node;
        auto& t = req.topics.emplace_back();
        t.name = topic;
        for (int32_t p : partitions) {
            auto& pp = t.partitions.emplace_back();
            pp.partition_index = p;
            pp.timestamp = timestamp;
            pp.current_leader_epoch = current_leader_epoch;
        }
        return broker().call<list_offsets_response>(req, version);
    }
    partition_response one(const std::string& topic, int32_t partition, int64_t timestamp,
                           int32_t current_leader_epoch = -1) {
        auto resp = list(topic, {partition}, timestamp, current_leader_epoch);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected response shape";
            return {};
        }
        return resp.topics[0].partitions[0];
    }
};

TEST_F(list_offsets_test, earliest_and_latest) {
    const auto name = unique_name("lo-ok");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 5).error_code, error_code::none);
    auto earliest = one(name, 0, k_earliest);
    EXPECT_ERROR(earliest.error_code, error_code::none);
    EXPECT_EQ(earliest.offset, 0);
    auto latest = one(name, 0, k_latest);
    EXPECT_ERROR(latest.error_code, error_code::none);
    EXPECT_EQ(latest.offset, 5);
    EXPECT_EQ(latest.leader_epoch,
              broker().metadata({name}).topics.at(0).partitions.at(0).leader_epoch);
}

TEST_F(list_offsets_test, max_timestamp_finds_the_last_record) {
    const auto name = unique_name("lo-maxts");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 3).error_code, error_code::none);
    auto r = one(name, 0, k_max_timestamp);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_GE(r.offset, 0);
    EXPECT_LE(r.offset, 2);
    EXPECT_GT(r.timestamp, 0);
}

TEST_F(list_offsets_test, timestamp_after_every_record_is_no_offset) {
    const auto name = unique_name("lo-future");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 2).error_code, error_code::none);
    auto r = one(name, 0, int64_t(1) << 52);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.offset, -1);
    EXPECT_EQ(r.timestamp, -1);
}

TEST_F(list_offsets_test, unknown_topic_is_unknown_topic_or_partition) {
    auto r = one(unique_name("lo-missing"), 0, k_latest);
    EXPECT_ERROR(r.error_code, error_code::unknown_topic_or_partition);
}

TEST_F(list_offsets_test, partition_beyond_count_is_unknown_topic_or_partition) {
    const auto name = unique_name("lo-partition");
    broker().create_topic(name);
    EXPECT_ERROR(one(name, 7, k_latest).error_code, error_code::unknown_topic_or_partition);
}

TEST_F(list_offsets_test, leader_epoch_ahead_is_unknown_leader_epoch) {
    const auto name = unique_name("lo-epoch");
    broker().create_topic(name);
    EXPECT_ERROR(one(name, 0, k_latest, 1000).error_code, error_code::unknown_leader_epoch);
}

TEST_F(list_offsets_test, partition_named_twice_is_invalid_request) {
    const auto name = unique_name("lo-dup");
    broker().create_topic(name);
    auto resp = list(name, {0, 0}, k_latest);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_FALSE(resp.topics[0].partitions.empty());
    for (const auto& p : resp.topics[0].partitions) {
        EXPECT_ERROR(p.error_code, error_code::invalid_request);
    }
}

}  // namespace
}  // namespace samsa::server::test
