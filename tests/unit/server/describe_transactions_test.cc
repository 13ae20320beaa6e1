// DescribeTransactions (key 65) against the in-process broker, as Kafka's
// TransactionCoordinator.handleDescribeTransactions answers: a transactional
// id after InitProducerId is Empty, and Ongoing with its partitions once one
// is added; an id never initialised is TRANSACTIONAL_ID_NOT_FOUND, an empty
// id INVALID_REQUEST, each id answered on its own and in request order.
#include <gtest/gtest.h>

#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/describe_transactions_request.h"
#include "protocol/generated/describe_transactions_response.h"
#include "txn_support.h"

namespace samsa::server::test {
namespace {

using protocol::describe_transactions_request;
using protocol::describe_transactions_response;
using state = describe_transactions_response::transaction_state_data;

class describe_transactions_test : public broker_test {
  protected:
    describe_transactions_response describe(const std::vector<std::string>& ids) {
        describe_transactions_request req;
        req.transactional_ids = ids;
        auto resp = broker().call<describe_transactions_response>(req, 0);
        EXPECT_EQ(resp.transaction_states.size(), ids.size());
        return resp;
    }
    state describe_one(const std::string& id) {
        auto resp = describe({id});
        return resp.transaction_states.empty() ? state{} : resp.transaction_states[0];
    }
};

TEST_F(describe_transactions_test, an_initialised_id_is_empty_then_ongoing) {
    const auto id = unique_name("dtx-ok");
    const auto topic = unique_name("dtx-topic");
    broker().create_topic(topic, 2);
    auto init = init_txn(broker(), id);
    ASSERT_ERROR(init.error_code, error_code::none);

    auto s = describe_one(id);
    EXPECT_EQ(s.transactional_id, id);
    EXPECT_ERROR(s.error_code, error_code::none);
    EXPECT_EQ(s.transaction_state, "Empty");
    EXPECT_EQ(s.producer_id, init.producer_id);
    EXPECT_EQ(s.producer_epoch, init.producer_epoch);
    EXPECT_EQ(s.transaction_timeout_ms, 60000);
    EXPECT_TRUE(s.topics.empty());

    protocol::add_partitions_to_txn_request add;
    add.v3_and_below_transactional_id = id;
    add.v3_and_below_producer_id = init.producer_id;
    add.v3_and_below_producer_epoch = init.producer_epoch;
    auto& t = add.v3_and_below_topics.emplace_back();
    t.name = topic;
    t.partitions = {1};
    auto added = broker().call<protocol::add_partitions_to_txn_response>(add, 3);
    ASSERT_EQ(added.results_by_topic_v3_and_below.size(), 1u);
    ASSERT_ERROR(
        added.results_by_topic_v3_and_below[0].results_by_partition.at(0).partition_error_code,
        error_code::none);

    s = describe_one(id);
    EXPECT_ERROR(s.error_code, error_code::none);
    EXPECT_EQ(s.transaction_state, "Ongoing");
    EXPECT_GT(s.transaction_start_time_ms, 0);
    ASSERT_EQ(s.topics.size(), 1u);
    EXPECT_EQ(s.topics[0].topic, topic);
    EXPECT_EQ(s.topics[0].partitions, std::vector<int32_t>{1});
}

TEST_F(describe_transactions_test, an_unknown_id_is_transactional_id_not_found) {
    // The coordinator must be ready first, or the answer is a retriable one.
    init_txn(broker(), unique_name("dtx-warm"));
    const auto id = unique_name("dtx-missing");
    auto s = describe_one(id);
    EXPECT_EQ(s.transactional_id, id);
    EXPECT_ERROR(s.error_code, error_code::transactional_id_not_found);
    EXPECT_TRUE(s.topics.empty());
}

TEST_F(describe_transactions_test, an_empty_id_is_invalid_request) {
    auto s = describe_one("");
    EXPECT_EQ(s.transactional_id, "");
    EXPECT_ERROR(s.error_code, error_code::invalid_request);
}

TEST_F(describe_transactions_test, each_id_is_answered_in_request_order) {
    const auto known = unique_name("dtx-known");
    ASSERT_ERROR(init_txn(broker(), known).error_code, error_code::none);
    const auto missing = unique_name("dtx-missing");
    auto resp = describe({missing, "", known});
    ASSERT_EQ(resp.transaction_states.size(), 3u);
    EXPECT_EQ(resp.transaction_states[0].transactional_id, missing);
    EXPECT_ERROR(resp.transaction_states[0].error_code, error_code::transactional_id_not_found);
    EXPECT_ERROR(resp.transaction_states[1].error_code, error_code::invalid_request);
    EXPECT_EQ(resp.transaction_states[2].transactional_id, known);
    EXPECT_ERROR(resp.transaction_states[2].error_code, error_code::none);
    EXPECT_EQ(resp.transaction_states[2].transaction_state, "Empty");
}

TEST_F(describe_transactions_test, no_ids_is_an_empty_answer) {
    EXPECT_TRUE(describe({}).transaction_states.empty());
}

}  // namespace
}  // namespace samsa::server::test
