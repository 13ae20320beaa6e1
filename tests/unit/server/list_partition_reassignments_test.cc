// ListPartitionReassignments (key 46) against the in-process one-broker
// cluster, where no reassignment can run (every target is this broker): as
// Kafka's ReplicationControlManager.listPartitionReassignments, listing all
// topics or named ones answers NONE with a null message and no topics; an
// unknown topic or partition is left out, not an error.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"

namespace samsa::server::test {
namespace {

using protocol::list_partition_reassignments_request;
using protocol::list_partition_reassignments_response;

class list_partition_reassignments_test : public broker_test {
  protected:
    list_partition_reassignments_response list(
        std::optional<
            std::vector<list_partition_reassignments_request::list_partition_reassignments_topics>>
            topics) {
        list_partition_reassignments_request req;
        req.topics = std::move(topics);
        auto resp = broker().call<list_partition_reassignments_response>(req, 0);
        EXPECT_ERROR(resp.error_code, error_code::none);
        EXPECT_FALSE(resp.error_message.has_value());
        return resp;
    }
};

TEST_F(list_partition_reassignments_test, all_topics_lists_nothing_when_none_runs) {
    broker().create_topic(unique_name("lpr-all"), 2);
    EXPECT_TRUE(list(std::nullopt).topics.empty());
}

TEST_F(list_partition_reassignments_test, named_topics_and_partitions_without_one_are_left_out) {
    const auto topic = unique_name("lpr-named");
    broker().create_topic(topic, 2);
    std::vector<list_partition_reassignments_request::list_partition_reassignments_topics> topics(
        2);
    topics[0].name = topic;
    topics[0].partition_indexes = {0, 1, 9};  // 9: no such partition
    topics[1].name = unique_name("lpr-missing");
    topics[1].partition_indexes = {0};
    EXPECT_TRUE(list(topics).topics.empty());
}

}  // namespace
}  // namespace samsa::server::test
