// CreatePartitions (key 37) against the in-process broker: a topic grows and
// Metadata shows the new partitions; unknown topics, counts that do not grow,
// bad assignments and duplicates get the error codes Kafka's controller
// answers; validate_only changes nothing.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"

namespace samsa::server::test {
namespace {

using protocol::create_partitions_request;
using protocol::create_partitions_response;
using partitions_topic = create_partitions_request::create_partitions_topic;

partitions_topic grow(std::string name, int32_t count) {
    partitions_topic t;
    t.name = std::move(name);
    t.count = count;
    t.assignments = std::nullopt;
    return t;
}

class create_partitions_test : public broker_test {
  protected:
    create_partitions_response send(std::vector<partitions_topic> topics,
                                    bool validate_only = false) {
        create_partitions_request req;
        req.topics = std::move(topics);
        req.timeout_ms = 30000;
        req.validate_only = validate_only;
        return broker().call<create_partitions_response>(req, 3);
    }
    int16_t one(partitions_topic t, bool validate_only = false) {
        auto resp = send({std::move(t)}, validate_only);
        if (resp.results.size() != 1) {
            ADD_FAILURE() << "expected one result";
            return -1;
        }
        return resp.results[0].error_code;
    }
    size_t partitions(const std::string& name) {
        auto md = broker().metadata({name});
        return md.topics.size() == 1 ? md.topics[0].partitions.size() : 0;
    }
};

TEST_F(create_partitions_test, grows_topic) {
    const auto name = unique_name("cp-ok");
    broker().create_topic(name, 1);
    ASSERT_ERROR(one(grow(name, 3)), error_code::none);
    EXPECT_TRUE(broker_fixture::wait_until([&] { return partitions(name) == 3; }));
}

TEST_F(create_partitions_test, explicit_assignment) {
    const auto name = unique_name("cp-assign");
    broker().create_topic(name, 1);
    auto t = grow(name, 2);
    t.assignments.emplace().emplace_back().broker_ids = to_node_ids({1});
    EXPECT_ERROR(one(t), error_code::none);
}

TEST_F(create_partitions_test, unknown_topic_is_unknown_topic_or_partition) {
    EXPECT_ERROR(one(grow(unique_name("cp-missing"), 2)), error_code::unknown_topic_or_partition);
}

TEST_F(create_partitions_test, same_count_is_invalid_partitions) {
    const auto name = unique_name("cp-same");
    broker().create_topic(name, 2);
    EXPECT_ERROR(one(grow(name, 2)), error_code::invalid_partitions);
}

TEST_F(create_partitions_test, fewer_partitions_is_invalid_partitions) {
    const auto name = unique_name("cp-fewer");
    broker().create_topic(name, 3);
    EXPECT_ERROR(one(grow(name, 1)), error_code::invalid_partitions);
}

TEST_F(create_partitions_test, assignment_to_unknown_broker_is_invalid_replica_assignment) {
    const auto name = unique_name("cp-bad-broker");
    broker().create_topic(name, 1);
    auto t = grow(name, 2);
    t.assignments.emplace().emplace_back().broker_ids = to_node_ids({42});
    EXPECT_ERROR(one(t), error_code::invalid_replica_assignment);
}

TEST_F(create_partitions_test, assignment_count_mismatch_is_invalid_replica_assignment) {
    const auto name = unique_name("cp-count");
    broker().create_topic(name, 1);
    auto t = grow(name, 4);  // three new partitions, one assignment
    t.assignments.emplace().emplace_back().broker_ids = to_node_ids({1});
    EXPECT_ERROR(one(t), error_code::invalid_replica_assignment);
}

TEST_F(create_partitions_test, duplicate_topic_is_invalid_request) {
    const auto name = unique_name("cp-dup");
    broker().create_topic(name, 1);
    auto resp = send({grow(name, 2), grow(name, 3)});
    ASSERT_FALSE(resp.results.empty());
    for (const auto& r : resp.results) {
        EXPECT_ERROR(r.error_code, error_code::invalid_request);
    }
    EXPECT_EQ(partitions(name), 1u);
}

TEST_F(create_partitions_test, validate_only_changes_nothing) {
    const auto name = unique_name("cp-validate");
    broker().create_topic(name, 1);
    EXPECT_ERROR(one(grow(name, 5), /*validate_only=*/true), error_code::none);
    EXPECT_EQ(partitions(name), 1u);
}

}  // namespace
}  // namespace samsa::server::test
