// OffsetFetch (key 9) against the in-process broker: committed offsets and
// their metadata come back (v1-7 single group, v8+ batched groups), and
// groups, topics or partitions without a commit answer offset -1 with NONE,
// as Kafka does.
#include <gtest/gtest.h>

#include "group_support.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"

namespace samsa::server::test {
namespace {

using protocol::offset_fetch_request;
using protocol::offset_fetch_response;

class offset_fetch_test : public group_test {
  protected:
    void SetUp() override {
        group_test::SetUp();
        if (!HasFatalFailure()) {
            _topic = unique_name("of-topic");
            broker().create_topic(_topic, 2);
        }
    }
    offset_fetch_response fetch_v7(const std::string& group, const std::string& topic,
                                   std::vector<int32_t> partitions) {
        offset_fetch_request req;
        req.group_id = group;
        auto& t = req.topics->emplace_back();
        t.name = topic;
        t.partition_indexes = std::move(partitions);
        return broker().call<offset_fetch_response>(req, 7);
    }
    std::string _topic;
};

TEST_F(offset_fetch_test, committed_offset_comes_back) {
    const auto group = unique_name("of-ok");
    ASSERT_ERROR(commit(broker(), group, _topic, 1, 42, {}, "meta"), error_code::none);
    auto resp = fetch_v7(group, _topic, {1});
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    const auto& p = resp.topics[0].partitions[0];
    EXPECT_ERROR(p.error_code, error_code::none);
    EXPECT_EQ(p.committed_offset, 42);
    EXPECT_EQ(p.metadata, "meta");
}

TEST_F(offset_fetch_test, partition_without_commit_is_minus_one) {
    const auto group = unique_name("of-partial");
    ASSERT_ERROR(commit(broker(), group, _topic, 0, 3), error_code::none);
    auto resp = fetch_v7(group, _topic, {1});
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_ERROR(resp.topics[0].partitions[0].error_code, error_code::none);
    EXPECT_EQ(resp.topics[0].partitions[0].committed_offset, -1);
}

TEST_F(offset_fetch_test, unknown_group_is_minus_one) {
    join_stable(broker(), unique_name("of-warm"));
    auto resp = fetch_v7(unique_name("of-missing"), _topic, {0});
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_ERROR(resp.topics[0].partitions[0].error_code, error_code::none);
    EXPECT_EQ(resp.topics[0].partitions[0].committed_offset, -1);
}

TEST_F(offset_fetch_test, unknown_topic_is_minus_one) {
    const auto group = unique_name("of-no-topic");
    ASSERT_ERROR(commit(broker(), group, _topic, 0, 3), error_code::none);
    auto resp = fetch_v7(group, unique_name("of-missing-topic"), {0});
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
    EXPECT_EQ(resp.topics[0].partitions[0].committed_offset, -1);
}

TEST_F(offset_fetch_test, null_topics_lists_every_commit) {
    const auto group = unique_name("of-all");
    ASSERT_ERROR(commit(broker(), group, _topic, 0, 11), error_code::none);
    ASSERT_ERROR(commit(broker(), group, _topic, 1, 12), error_code::none);
    offset_fetch_request req;
    req.group_id = group;
    req.topics = std::nullopt;
    auto resp = broker().call<offset_fetch_response>(req, 7);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].partitions.size(), 2u);
}

TEST_F(offset_fetch_test, batched_groups_since_v8) {
    const auto with = unique_name("of-v8-a");
    const auto without = unique_name("of-v8-b");
    ASSERT_ERROR(commit(broker(), with, _topic, 0, 9), error_code::none);
    offset_fetch_request req;
    for (const auto& g : {with, without}) {
        auto& rg = req.groups.emplace_back();
        rg.group_id = g;
        auto& t = rg.topics->emplace_back();
        t.name = _topic;
        t.partition_indexes = {0};
    }
    auto resp = broker().call<offset_fetch_response>(req, 8);
    ASSERT_EQ(resp.groups.size(), 2u);
    EXPECT_EQ(resp.groups[0].group_id, with);
    EXPECT_ERROR(resp.groups[0].error_code, error_code::none);
    ASSERT_EQ(resp.groups[0].topics.size(), 1u);
    EXPECT_EQ(resp.groups[0].topics[0].partitions.at(0).committed_offset, 9);
    EXPECT_ERROR(resp.groups[1].error_code, error_code::none);
    ASSERT_EQ(resp.groups[1].topics.size(), 1u);
    EXPECT_EQ(resp.groups[1].topics[0].partitions.at(0).committed_offset, -1);
}

}  // namespace
}  // namespace samsa::server::test
