// OffsetForLeaderEpoch (key 23) against the in-process broker: the end offset
// of the leader's current epoch, an epoch the log has not reached (undefined
// answer), unknown topics and partitions, and leader epochs ahead of the
// leader's.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/offset_for_leader_epoch_request.h"
#include "protocol/generated/offset_for_leader_epoch_response.h"

namespace samsa::server::test {
namespace {

using protocol::offset_for_leader_epoch_request;
using protocol::offset_for_leader_epoch_response;
using epoch_end_offset =
    offset_for_leader_epoch_response::offset_for_leader_topic_result::epoch_end_offset;

class offset_for_leader_epoch_test : public broker_test {
  protected:
    epoch_end_offset ask(const std::string& topic, int32_t partition, int32_t leader_epoch,
                         int32_t current_leader_epoch = -1) {
        offset_for_leader_epoch_request req;
        req.replica_id = no_node;  // a consumer
        auto& t = req.topics.emplace_back();
        t.topic = topic;
        auto& p = t.partitions.emplace_back();
        p.partition = partition;
        p.leader_epoch = leader_epoch;
        p.current_leader_epoch = current_leader_epoch;
        auto resp = broker().call<offset_for_leader_epoch_response>(req, 4);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected response shape";
            return {};
        }
        return resp.topics[0].partitions[0];
    }
    int32_t leader_epoch(const std::string& topic) {
        return broker().metadata({topic}).topics.at(0).partitions.at(0).leader_epoch;
    }
};

TEST_F(offset_for_leader_epoch_test, current_epoch_ends_at_log_end) {
    const auto name = unique_name("ofle-ok");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 3).error_code, error_code::none);
    const int32_t epoch = leader_epoch(name);
    auto r = ask(name, 0, epoch, epoch);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.leader_epoch, epoch);
    EXPECT_EQ(r.end_offset, 3);
}

TEST_F(offset_for_leader_epoch_test, epoch_after_the_latest_is_undefined) {
    const auto name = unique_name("ofle-future");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 1).error_code, error_code::none);
    auto r = ask(name, 0, leader_epoch(name) + 10);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.leader_epoch, -1);
    EXPECT_EQ(r.end_offset, -1);
}

TEST_F(offset_for_leader_epoch_test, unknown_topic_is_unknown_topic_or_partition) {
    EXPECT_ERROR(ask(unique_name("ofle-missing"), 0, 0).error_code,
                 error_code::unknown_topic_or_partition);
}

TEST_F(offset_for_leader_epoch_test, partition_beyond_count_is_unknown_topic_or_partition) {
    const auto name = unique_name("ofle-partition");
    broker().create_topic(name);
    EXPECT_ERROR(ask(name, 4, 0).error_code, error_code::unknown_topic_or_partition);
}

TEST_F(offset_for_leader_epoch_test, current_epoch_ahead_is_unknown_leader_epoch) {
    const auto name = unique_name("ofle-ahead");
    broker().create_topic(name);
    EXPECT_ERROR(ask(name, 0, 0, leader_epoch(name) + 100).error_code,
                 error_code::unknown_leader_epoch);
}

}  // namespace
}  // namespace samsa::server::test
