// OffsetDelete (key 47) against the in-process broker: an empty group's
// offsets are deleted; unknown groups, groups still subscribed to the topic,
// and unknown topics get the error codes Kafka answers.
#include <gtest/gtest.h>

#include "group_support.h"
#include "protocol/generated/offset_delete_request.h"
#include "protocol/generated/offset_delete_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"

namespace samsa::server::test {
namespace {

using protocol::offset_delete_request;
using protocol::offset_delete_response;

class offset_delete_test : public group_test {
  protected:
    void SetUp() override {
        group_test::SetUp();
        if (!HasFatalFailure()) {
            _topic = unique_name("od-topic");
            broker().create_topic(_topic);
        }
    }
    offset_delete_response remove(const std::string& group, const std::string& topic,
                                  int32_t partition = 0) {
        offset_delete_request req;
        req.group_id = group;
        auto& t = req.topics.emplace_back();
        t.name = topic;
        t.partitions.emplace_back().partition_index = partition;
        return broker().call<offset_delete_response>(req, 0);
    }
    int64_t committed(const std::string& group) {
        protocol::offset_fetch_request req;
        req.group_id = group;
        auto& t = req.topics->emplace_back();
        t.name = _topic;
        t.partition_indexes = {0};
        auto resp = broker().call<protocol::offset_fetch_response>(req, 7);
        return resp.topics.at(0).partitions.at(0).committed_offset;
    }
    std::string _topic;
};

TEST_F(offset_delete_test, empty_group_offsets_are_deleted) {
    const auto group = unique_name("od-ok");
    ASSERT_ERROR(commit(broker(), group, _topic, 0, 4), error_code::none);
    auto resp = remove(group, _topic);
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_ERROR(resp.topics[0].partitions[0].error_code, error_code::none);
    EXPECT_EQ(committed(group), -1);
}

TEST_F(offset_delete_test, unknown_group_is_group_id_not_found) {
    join_stable(broker(), unique_name("od-warm"));
    EXPECT_ERROR(remove(unique_name("od-missing"), _topic).error_code,
                 error_code::group_id_not_found);
}

TEST_F(offset_delete_test, subscribed_topic_is_group_subscribed_to_topic) {
    const auto group = unique_name("od-subscribed");
    auto m = join_stable(broker(), group, {_topic});
    ASSERT_ERROR(commit(broker(), group, _topic, 0, 4, m), error_code::none);
    auto resp = remove(group, _topic);
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_ERROR(resp.topics[0].partitions[0].error_code, error_code::group_subscribed_to_topic);
    EXPECT_EQ(committed(group), 4);
}

TEST_F(offset_delete_test, unknown_topic_is_unknown_topic_or_partition) {
    const auto group = unique_name("od-no-topic");
    ASSERT_ERROR(commit(broker(), group, _topic, 0, 4), error_code::none);
    auto resp = remove(group, unique_name("od-missing-topic"));
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_ERROR(resp.topics[0].partitions[0].error_code, error_code::unknown_topic_or_partition);
}

TEST_F(offset_delete_test, empty_group_id_is_invalid_group_id) {
    EXPECT_ERROR(remove("", _topic).error_code, error_code::invalid_group_id);
}

}  // namespace
}  // namespace samsa::server::test
