// DescribeTopicPartitions (key 75, KIP-966) against the in-process broker, as
// Kafka's DescribeTopicPartitionsRequestHandler answers: named topics with
// their partitions (leader, replicas, ISR, empty ELR lists) and authorized
// operations; an unknown topic UNKNOWN_TOPIC_OR_PARTITION and an illegal
// name INVALID_TOPIC_EXCEPTION, both with a zero topic id; pagination by
// ResponsePartitionLimit (at least 1) and a cursor; a cursor on a topic not
// asked for, or on a negative partition, fails every named topic with
// INVALID_REQUEST.
#include <gtest/gtest.h>

#include <algorithm>

#include "broker_fixture.h"
#include "protocol/generated/describe_topic_partitions_request.h"
#include "protocol/generated/describe_topic_partitions_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_topic_partitions_request;
using protocol::describe_topic_partitions_response;
using topic_out = describe_topic_partitions_response::describe_topic_partitions_response_topic;

// READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS and
// ALTER_CONFIGS: every operation on a topic, allowed without an authorizer.
constexpr int32_t k_topic_operations =
    (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);

class describe_topic_partitions_test : public broker_test {
  protected:
    describe_topic_partitions_response describe(
        const std::vector<std::string>& topics, int32_t limit = 2000,
        std::optional<std::pair<std::string, int32_t>> cursor = std::nullopt) {
        describe_topic_partitions_request req;
        for (const auto& t : topics) {
            req.topics.emplace_back().name = t;
        }
        req.response_partition_limit = limit;
        if (cursor) {
            auto& c = req.cursor.emplace();
            c.topic_name = cursor->first;
            c.partition_index = cursor->second;
        }
        return broker().call<describe_topic_partitions_response>(req, 0);
    }
    static std::vector<int32_t> partitions_of(const topic_out& t) {
        std::vector<int32_t> out;
        for (const auto& p : t.partitions) {
            out.push_back(p.partition_index);
        }
        return out;
    }
};

TEST_F(describe_topic_partitions_test, a_named_topic_is_described) {
    const auto topic = unique_name("dtp-ok");
    const uuid id = broker().create_topic(topic, 3);
    auto resp = describe({topic});
    EXPECT_FALSE(resp.next_cursor.has_value());
    ASSERT_EQ(resp.topics.size(), 1u);
    const auto& t = resp.topics[0];
    EXPECT_ERROR(t.error_code, error_code::none);
    EXPECT_EQ(t.name.value_or(""), topic);
    EXPECT_EQ(t.topic_id, id);
    EXPECT_FALSE(t.is_internal);
    EXPECT_EQ(t.topic_authorized_operations, k_topic_operations);
    ASSERT_EQ(partitions_of(t), (std::vector<int32_t>{0, 1, 2}));
    for (const auto& p : t.partitions) {
        EXPECT_ERROR(p.error_code, error_code::none);
        EXPECT_EQ(p.leader_id.value(), broker().node_id());
        EXPECT_GE(p.leader_epoch, 0);
        EXPECT_EQ(p.replica_nodes, to_node_ids({broker().node_id()}));
        EXPECT_EQ(p.isr_nodes, to_node_ids({broker().node_id()}));
        EXPECT_EQ(p.eligible_leader_replicas, std::vector<node_id>{});
        EXPECT_EQ(p.last_known_elr, std::vector<node_id>{});
        EXPECT_TRUE(p.offline_replicas.empty());
    }
}

TEST_F(describe_topic_partitions_test, unknown_and_illegal_names_are_refused_per_topic) {
    const auto topic = unique_name("dtp-known");
    broker().create_topic(topic);
    const auto missing = unique_name("dtp-missing");
    auto resp = describe({topic, missing, "no spaces!"});
    ASSERT_EQ(resp.topics.size(), 3u);
    auto find = [&](const std::string& name) -> const topic_out* {
        auto it = std::find_if(resp.topics.begin(), resp.topics.end(),
                               [&](const auto& t) { return t.name.value_or("") == name; });
        return it == resp.topics.end() ? nullptr : &*it;
    };
    ASSERT_NE(find(topic), nullptr);
    EXPECT_ERROR(find(topic)->error_code, error_code::none);
    ASSERT_NE(find(missing), nullptr);
    EXPECT_ERROR(find(missing)->error_code, error_code::unknown_topic_or_partition);
    EXPECT_EQ(find(missing)->topic_id, uuid{});
    EXPECT_TRUE(find(missing)->partitions.empty());
    ASSERT_NE(find("no spaces!"), nullptr);
    EXPECT_ERROR(find("no spaces!")->error_code, error_code::invalid_topic_exception);
    EXPECT_EQ(find("no spaces!")->topic_id, uuid{});
}

TEST_F(describe_topic_partitions_test, the_partition_limit_pages_with_a_cursor) {
    const auto topic = unique_name("dtp-page");
    broker().create_topic(topic, 3);
    auto first = describe({topic}, 2);
    ASSERT_EQ(first.topics.size(), 1u);
    EXPECT_EQ(partitions_of(first.topics[0]), (std::vector<int32_t>{0, 1}));
    ASSERT_TRUE(first.next_cursor.has_value());
    EXPECT_EQ(first.next_cursor->topic_name, topic);
    EXPECT_EQ(first.next_cursor->partition_index, 2);

    auto rest = describe({topic}, 2, std::pair{topic, 2});
    ASSERT_EQ(rest.topics.size(), 1u);
    EXPECT_EQ(partitions_of(rest.topics[0]), std::vector<int32_t>{2});
    EXPECT_FALSE(rest.next_cursor.has_value());

    // A limit below 1 is taken as 1.
    auto one = describe({topic}, 0);
    ASSERT_EQ(one.topics.size(), 1u);
    EXPECT_EQ(partitions_of(one.topics[0]), std::vector<int32_t>{0});
    ASSERT_TRUE(one.next_cursor.has_value());
    EXPECT_EQ(one.next_cursor->partition_index, 1);
}

TEST_F(describe_topic_partitions_test, a_full_page_ends_before_the_next_topic) {
    // Topics are answered in name order.
    const auto base = unique_name("dtp-span");
    const auto a = base + "-a";
    const auto b = base + "-b";
    broker().create_topic(a, 2);
    broker().create_topic(b, 2);
    auto resp = describe({b, a}, 2);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_EQ(resp.topics[0].name.value_or(""), a);
    EXPECT_EQ(partitions_of(resp.topics[0]), (std::vector<int32_t>{0, 1}));
    ASSERT_TRUE(resp.next_cursor.has_value());
    EXPECT_EQ(resp.next_cursor->topic_name, b);
    EXPECT_EQ(resp.next_cursor->partition_index, 0);
}

TEST_F(describe_topic_partitions_test, all_topics_from_a_cursor) {
    const auto topic = unique_name("dtp-all");
    broker().create_topic(topic, 2);
    auto resp = describe({}, 2000, std::pair{topic, 1});
    ASSERT_FALSE(resp.topics.empty());
    // Names before the cursor's are not listed; the cursor's topic starts at its partition.
    EXPECT_EQ(resp.topics[0].name.value_or(""), topic);
    EXPECT_EQ(partitions_of(resp.topics[0]), std::vector<int32_t>{1});
    for (const auto& t : resp.topics) {
        EXPECT_GE(t.name.value_or(""), topic);
        EXPECT_ERROR(t.error_code, error_code::none);
    }
}

TEST_F(describe_topic_partitions_test, a_cursor_outside_the_request_is_invalid) {
    const auto topic = unique_name("dtp-cursor");
    broker().create_topic(topic);
    const auto other = unique_name("dtp-other");
    // The cursor's topic is not among the named ones.
    auto resp = describe({topic, other}, 2000, std::pair{topic + "-x", 0});
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].name.value_or(""), topic);
    EXPECT_EQ(resp.topics[1].name.value_or(""), other);
    for (const auto& t : resp.topics) {
        EXPECT_ERROR(t.error_code, error_code::invalid_request);
        EXPECT_TRUE(t.partitions.empty());
    }
    // A negative partition.
    resp = describe({topic}, 2000, std::pair{topic, -1});
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_ERROR(resp.topics[0].error_code, error_code::invalid_request);
    EXPECT_TRUE(resp.topics[0].partitions.empty());
}

}  // namespace
}  // namespace samsa::server::test
