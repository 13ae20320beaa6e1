// CreateTopics (key 19) against the in-process broker: what the KRaft
// controller answers for existing topics, invalid names, partition counts,
// replication factors, replica assignments and configs, duplicates in one
// request, and validate_only.
#include <gtest/gtest.h>

#include "broker_fixture.h"

namespace samsa::server::test {
namespace {

using protocol::create_topics_request;
using protocol::create_topics_response;
using creatable_topic = create_topics_request::creatable_topic;

class create_topics_test : public broker_test {
  protected:
    // One topic per call: its result.
    create_topics_response::creatable_topic_result create(creatable_topic t,
                                                          bool validate_only = false) {
        create_topics_request req;
        req.topics.push_back(std::move(t));
        req.validate_only = validate_only;
        auto resp = broker().call<create_topics_response>(req, 7);
        EXPECT_EQ(resp.topics.size(), 1u);
        return resp.topics.empty() ? create_topics_response::creatable_topic_result{}
                                   : resp.topics[0];
    }
};

creatable_topic topic(std::string name, int32_t partitions, int16_t replication) {
    creatable_topic t;
    t.name = std::move(name);
    t.num_partitions = partitions;
    t.replication_factor = replication;
    return t;
}

creatable_topic with_config(creatable_topic t, std::string key, std::string value) {
    auto& c = t.configs.emplace_back();
    c.name = std::move(key);
    c.value = std::move(value);
    return t;
}

TEST_F(create_topics_test, creates_topic_and_reports_its_shape) {
    const auto name = unique_name("ct-ok");
    auto r = create(topic(name, 2, 1));
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.name, name);
    EXPECT_FALSE(r.topic_id.is_zero());
    EXPECT_EQ(r.num_partitions, 2);
    EXPECT_EQ(r.replication_factor, 1);
}

TEST_F(create_topics_test, defaults_for_minus_one) {
    const auto name = unique_name("ct-default");
    auto r = create(topic(name, -1, -1));
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.num_partitions, 1);  // num.partitions
    EXPECT_EQ(r.replication_factor, 1);
}

TEST_F(create_topics_test, existing_topic_is_topic_already_exists) {
    const auto name = unique_name("ct-exists");
    broker().create_topic(name);
    auto r = create(topic(name, 1, 1));
    EXPECT_ERROR(r.error_code, error_code::topic_already_exists);
}

TEST_F(create_topics_test, zero_partitions_is_invalid_partitions) {
    auto r = create(topic(unique_name("ct-zero-parts"), 0, 1));
    EXPECT_ERROR(r.error_code, error_code::invalid_partitions);
}

TEST_F(create_topics_test, negative_partitions_is_invalid_partitions) {
    auto r = create(topic(unique_name("ct-neg-parts"), -5, 1));
    EXPECT_ERROR(r.error_code, error_code::invalid_partitions);
}

TEST_F(create_topics_test, zero_replication_factor_is_invalid_replication_factor) {
    auto r = create(topic(unique_name("ct-rf0"), 1, 0));
    EXPECT_ERROR(r.error_code, error_code::invalid_replication_factor);
}

TEST_F(create_topics_test, replication_factor_above_broker_count_is_invalid_replication_factor) {
    auto r = create(topic(unique_name("ct-rf3"), 1, 3));
    EXPECT_ERROR(r.error_code, error_code::invalid_replication_factor);
}

TEST_F(create_topics_test, invalid_name_is_invalid_topic_exception) {
    EXPECT_ERROR(create(topic("bad name!", 1, 1)).error_code, error_code::invalid_topic_exception);
    EXPECT_ERROR(create(topic("..", 1, 1)).error_code, error_code::invalid_topic_exception);
    EXPECT_ERROR(create(topic(std::string(250, 'a'), 1, 1)).error_code,
                 error_code::invalid_topic_exception);
}

TEST_F(create_topics_test, unknown_config_is_invalid_config) {
    auto r = create(with_config(topic(unique_name("ct-bad-key"), 1, 1), "no.such.config", "1"));
    EXPECT_ERROR(r.error_code, error_code::invalid_config);
}

TEST_F(create_topics_test, invalid_config_value_is_invalid_config) {
    auto r =
        create(with_config(topic(unique_name("ct-bad-value"), 1, 1), "cleanup.policy", "bogus"));
    EXPECT_ERROR(r.error_code, error_code::invalid_config);
    auto r2 =
        create(with_config(topic(unique_name("ct-bad-num"), 1, 1), "retention.ms", "not-a-number"));
    EXPECT_ERROR(r2.error_code, error_code::invalid_config);
}

TEST_F(create_topics_test, duplicate_name_in_one_request_is_invalid_request) {
    const auto name = unique_name("ct-dup");
    create_topics_request req;
    req.topics.push_back(topic(name, 1, 1));
    req.topics.push_back(topic(name, 1, 1));
    auto resp = broker().call<create_topics_response>(req, 7);
    ASSERT_FALSE(resp.topics.empty());
    for (const auto& t : resp.topics) {
        EXPECT_ERROR(t.error_code, error_code::invalid_request);
    }
    // Neither was created.
    auto md = broker().metadata({name});
    ASSERT_EQ(md.topics.size(), 1u);
    EXPECT_ERROR(md.topics[0].error_code, error_code::unknown_topic_or_partition);
}

TEST_F(create_topics_test, assignment_to_unknown_broker_is_invalid_replica_assignment) {
    auto t = topic(unique_name("ct-assign"), -1, -1);
    auto& a = t.assignments.emplace_back();
    a.partition_index = 0;
    a.broker_ids = to_node_ids({42});
    EXPECT_ERROR(create(t).error_code, error_code::invalid_replica_assignment);
}

TEST_F(create_topics_test, assignment_with_partition_count_is_invalid_request) {
    auto t = topic(unique_name("ct-assign-count"), 1, -1);
    auto& a = t.assignments.emplace_back();
    a.partition_index = 0;
    a.broker_ids = to_node_ids({1});
    EXPECT_ERROR(create(t).error_code, error_code::invalid_request);
}

TEST_F(create_topics_test, explicit_assignment_creates_topic) {
    auto t = topic(unique_name("ct-assign-ok"), -1, -1);
    for (int32_t p = 0; p < 2; ++p) {
        auto& a = t.assignments.emplace_back();
        a.partition_index = p;
        a.broker_ids = to_node_ids({1});
    }
    auto r = create(t);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_EQ(r.num_partitions, 2);
}

TEST_F(create_topics_test, validate_only_creates_nothing) {
    const auto name = unique_name("ct-validate");
    auto r = create(topic(name, 1, 1), /*validate_only=*/true);
    EXPECT_ERROR(r.error_code, error_code::none);
    auto md = broker().metadata({name});
    ASSERT_EQ(md.topics.size(), 1u);
    EXPECT_ERROR(md.topics[0].error_code, error_code::unknown_topic_or_partition);
}

TEST_F(create_topics_test, validate_only_still_reports_errors) {
    auto r = create(topic(unique_name("ct-validate-bad"), 0, 1), /*validate_only=*/true);
    EXPECT_ERROR(r.error_code, error_code::invalid_partitions);
}

}  // namespace
}  // namespace samsa::server::test
