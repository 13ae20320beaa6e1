// DescribeLogDirs (key 35) against the in-process broker: the broker's log
// dir with its partitions and sizes, one topic's partitions on request, and
// topics that do not exist simply absent (Kafka reports no error for them).
#include <gtest/gtest.h>

#include <algorithm>

#include "broker_fixture.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_log_dirs_request;
using protocol::describe_log_dirs_response;
using log_dir_topic = describe_log_dirs_response::describe_log_dirs_result::describe_log_dirs_topic;

class describe_log_dirs_test : public broker_test {
  protected:
    describe_log_dirs_response describe(const std::string& topic, std::vector<int32_t> partitions) {
        describe_log_dirs_request req;
        auto& t = req.topics->emplace_back();
        t.topic = topic;
        t.partitions = std::move(partitions);
        return broker().call<describe_log_dirs_response>(req, 4);
    }
};

const log_dir_topic* find(const describe_log_dirs_response& r, const std::string& topic) {
    for (const auto& d : r.results) {
        for (const auto& t : d.topics) {
            if (t.name == topic) {
                return &t;
            }
        }
    }
    return nullptr;
}

TEST_F(describe_log_dirs_test, all_dirs_list_the_log_dir_and_its_partitions) {
    const auto name = unique_name("dld-all");
    broker().create_topic(name, 2);
    ASSERT_ERROR(broker().produce(name, 0, 3).error_code, error_code::none);
    describe_log_dirs_request req;
    req.topics = std::nullopt;
    auto resp = broker().call<describe_log_dirs_response>(req, 4);
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_FALSE(resp.results.empty());
    EXPECT_ERROR(resp.results[0].error_code, error_code::none);
    EXPECT_FALSE(resp.results[0].log_dir.empty());
    EXPECT_GT(resp.results[0].total_bytes, 0);
    EXPECT_GE(resp.results[0].usable_bytes, 0);
    const auto* t = find(resp, name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->partitions.size(), 2u);
}

TEST_F(describe_log_dirs_test, one_partition_with_its_size) {
    const auto name = unique_name("dld-one");
    broker().create_topic(name, 2);
    ASSERT_ERROR(broker().produce(name, 1, 5).error_code, error_code::none);
    auto resp = describe(name, {1});
    const auto* t = find(resp, name);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->partitions.size(), 1u);
    EXPECT_EQ(t->partitions[0].partition_index, 1);
    EXPECT_GT(t->partitions[0].partition_size, 0);
    EXPECT_FALSE(t->partitions[0].is_future_key);
}

TEST_F(describe_log_dirs_test, unknown_topic_is_absent_without_error) {
    auto resp = describe(unique_name("dld-missing"), {0});
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_FALSE(resp.results.empty());
    EXPECT_ERROR(resp.results[0].error_code, error_code::none);
    for (const auto& d : resp.results) {
        EXPECT_TRUE(d.topics.empty());
    }
}

}  // namespace
}  // namespace samsa::server::test
