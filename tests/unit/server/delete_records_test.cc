// DeleteRecords (key 21) against the in-process broker: moving the log start
// offset (explicitly and to the high watermark with -1), and the errors Kafka
// answers for unknown topics and partitions, offsets beyond the high
// watermark or negative, and topics that are compacted.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/delete_records_request.h"
#include "protocol/generated/delete_records_response.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"

namespace samsa::server::test {
namespace {

using protocol::delete_records_request;
using protocol::delete_records_response;
using partition_result =
    delete_records_response::delete_records_topic_result::delete_records_partition_result;

class delete_records_test : public broker_test {
  protected:
    partition_result remove(const std::string& topic, int32_t partition, int64_t offset) {
        delete_records_request req;
        req.timeout_ms = 30000;
        auto& t = req.topics.emplace_back();
        t.name = topic;
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        p.offset = offset;
        auto resp = broker().call<delete_records_response>(req, 2);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected response shape";
            return {};
        }
        return resp.topics[0].partitions[0];
    }
    int64_t earliest(const std::string& topic) {
        protocol::list_offsets_request req;
        req.replica_id = no_node;
        auto& t = req.topics.emplace_back();
        t.name = topic;
        t.partitions.emplace_back().timestamp = -2;
        auto resp = broker().call<protocol::list_offsets_response>(req, 8);
        return resp.topics.at(0).partitions.at(0).offset;
    }
};

TEST_F(delete_records_test, moves_log_start_offset) {
    const auto name = unique_name("dr-ok");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 5).error_code, error_code::none);
    auto r = remove(name, 0, 3);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.low_watermark, 3);
    EXPECT_EQ(earliest(name), 3);
}

TEST_F(delete_records_test, minus_one_deletes_up_to_high_watermark) {
    const auto name = unique_name("dr-hw");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 4).error_code, error_code::none);
    auto r = remove(name, 0, -1);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.low_watermark, 4);
}

TEST_F(delete_records_test, offset_beyond_high_watermark_is_offset_out_of_range) {
    const auto name = unique_name("dr-oor");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 2).error_code, error_code::none);
    EXPECT_ERROR(remove(name, 0, 10).error_code, error_code::offset_out_of_range);
    EXPECT_EQ(earliest(name), 0);
}

TEST_F(delete_records_test, negative_offset_is_offset_out_of_range) {
    const auto name = unique_name("dr-neg");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 2).error_code, error_code::none);
    EXPECT_ERROR(remove(name, 0, -7).error_code, error_code::offset_out_of_range);
}

TEST_F(delete_records_test, unknown_topic_is_unknown_topic_or_partition) {
    EXPECT_ERROR(remove(unique_name("dr-missing"), 0, 0).error_code,
                 error_code::unknown_topic_or_partition);
}

TEST_F(delete_records_test, partition_beyond_count_is_unknown_topic_or_partition) {
    const auto name = unique_name("dr-partition");
    broker().create_topic(name);
    EXPECT_ERROR(remove(name, 5, 0).error_code, error_code::unknown_topic_or_partition);
}

// Kafka's Partition.deleteRecordsOnLeader refuses a topic whose
// cleanup.policy lacks "delete" with POLICY_VIOLATION.
TEST_F(delete_records_test, compacted_topic_is_policy_violation) {
    const auto name = unique_name("dr-compact");
    broker().create_topic(name, 1, 1, {{"cleanup.policy", "compact"}});
    ASSERT_ERROR(broker().produce(name, 0, 2).error_code, error_code::none);
    auto r = remove(name, 0, 1);
    EXPECT_ERROR(r.error_code, error_code::policy_violation);
    EXPECT_EQ(r.low_watermark, -1);
    EXPECT_EQ(earliest(name), 0);
}

// The policy is checked before the offset.
TEST_F(delete_records_test, compacted_topic_is_policy_violation_for_any_offset) {
    const auto name = unique_name("dr-compact-oor");
    broker().create_topic(name, 1, 1, {{"cleanup.policy", "compact"}});
    EXPECT_ERROR(remove(name, 0, 10).error_code, error_code::policy_violation);
}

TEST_F(delete_records_test, compact_and_delete_policy_allows_deletion) {
    const auto name = unique_name("dr-compact-delete");
    broker().create_topic(name, 1, 1, {{"cleanup.policy", "compact,delete"}});
    ASSERT_ERROR(broker().produce(name, 0, 3).error_code, error_code::none);
    auto r = remove(name, 0, 2);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.low_watermark, 2);
    EXPECT_EQ(earliest(name), 2);
}

}  // namespace
}  // namespace samsa::server::test
