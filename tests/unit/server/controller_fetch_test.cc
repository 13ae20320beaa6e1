// Fetch (key 1) on the controller listener is the metadata quorum's own
// handler (ControllerApis): the Raft log of __cluster_metadata-0 is served
// there, and a Fetch of any other partition is INVALID_REQUEST, as Kafka's
// Raft client answers; on the client listener Fetch stays the data path's.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"

namespace samsa::server::test {
namespace {

using protocol::fetch_request;
using protocol::fetch_response;

class controller_fetch_test : public broker_test {
  protected:
    static fetch_request fetch_of(const std::string& topic, int64_t offset,
                                  int32_t current_leader_epoch = -1) {
        fetch_request req;
        req.replica_id = no_node;
        req.replica_state.replica_id = no_node;
        req.max_wait_ms = 0;
        req.min_bytes = 0;
        req.max_bytes = 1 << 20;
        auto& t = req.topics.emplace_back();
        t.topic = topic;
        auto& p = t.partitions.emplace_back();
        p.partition = 0;
        p.fetch_offset = offset;
        p.partition_max_bytes = 1 << 20;
        p.current_leader_epoch = current_leader_epoch;
        // An empty log's last epoch is 0; Kafka's Raft client refuses a negative one.
        p.last_fetched_epoch = 0;
        return req;
    }
};

TEST_F(controller_fetch_test, an_observer_reads_the_metadata_log) {
    // Epoch 0 is older than the quorum's: the answer names the current one.
    auto first = broker().call<fetch_response>(fetch_of("__cluster_metadata", 0, 0), 12,
                                               listener_kind::controller);
    ASSERT_EQ(first.responses.size(), 1u);
    ASSERT_EQ(first.responses[0].partitions.size(), 1u);
    const int32_t epoch = first.responses[0].partitions[0].current_leader.leader_epoch;
    ASSERT_GT(epoch, 0);

    auto resp = broker().call<fetch_response>(fetch_of("__cluster_metadata", 0, epoch), 12,
                                              listener_kind::controller);
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.responses.size(), 1u);
    ASSERT_EQ(resp.responses[0].partitions.size(), 1u);
    const auto& p = resp.responses[0].partitions[0];
    EXPECT_ERROR(p.error_code, error_code::none);
    EXPECT_GT(p.high_watermark, 0);
    EXPECT_GT(p.records.size(), 0u);
}

TEST_F(controller_fetch_test, a_data_partition_is_an_invalid_request_there) {
    const auto topic = unique_name("ctl-fetch");
    broker().create_topic(topic, 1);
    auto resp = broker().call<fetch_response>(fetch_of(topic, 0), 12, listener_kind::controller);
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
}

TEST_F(controller_fetch_test, the_client_listener_serves_data_partitions) {
    const auto topic = unique_name("client-fetch");
    broker().create_topic(topic, 1);
    auto resp = broker().call<fetch_response>(fetch_of(topic, 0), 12);
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.responses.size(), 1u);
    ASSERT_EQ(resp.responses[0].partitions.size(), 1u);
    EXPECT_ERROR(resp.responses[0].partitions[0].error_code, error_code::none);
}

}  // namespace
}  // namespace samsa::server::test
