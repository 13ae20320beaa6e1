// AddPartitionsToTxn (key 24) against the in-process broker: v3 adds the
// partitions of a transaction (NONE each); an unknown topic or partition is
// UNKNOWN_TOPIC_OR_PARTITION and the others of the request
// OPERATION_NOT_ATTEMPTED; a stale epoch is PRODUCER_FENCED from v2 and
// INVALID_PRODUCER_EPOCH before (KIP-588); v4 batches transactions and
// verifies without adding (verify_only, KIP-890).
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "txn_support.h"

namespace samsa::server::test {
namespace {

using protocol::add_partitions_to_txn_request;
using protocol::add_partitions_to_txn_response;
using topic_result = add_partitions_to_txn_response::add_partitions_to_txn_topic_result;

std::vector<add_partitions_to_txn_request::add_partitions_to_txn_topic> topics_of(
    const std::vector<std::pair<std::string, std::vector<int32_t>>>& topics) {
    std::vector<add_partitions_to_txn_request::add_partitions_to_txn_topic> out;
    for (const auto& [name, parts] : topics) {
        auto& t = out.emplace_back();
        t.name = name;
        t.partitions = parts;
    }
    return out;
}

// The error of (topic, partition) in a result list; a failure when absent.
int16_t code_of(const std::vector<topic_result>& results, const std::string& topic,
                int32_t partition) {
    for (const auto& t : results) {
        if (t.name != topic) {
            continue;
        }
        for (const auto& p : t.results_by_partition) {
            if (p.partition_index == partition) {
                return p.partition_error_code;
            }
        }
    }
    ADD_FAILURE() << "no result for " << topic << "-" << partition;
    return -1;
}

class add_partitions_to_txn_test : public broker_test {
  protected:
    void SetUp() override {
        broker_test::SetUp();
        if (!HasFatalFailure()) {
            _topic = unique_name("apt-topic");
            broker().create_topic(_topic, 3);
        }
    }
    // v0-3: one transaction.
    std::vector<topic_result> add_v3(
        const std::string& id, int64_t pid, int16_t epoch,
        const std::vector<std::pair<std::string, std::vector<int32_t>>>& topics,
        int16_t version = 3) {
        add_partitions_to_txn_request req;
        req.v3_and_below_transactional_id = id;
        req.v3_and_below_producer_id = producer_id{pid};
        req.v3_and_below_producer_epoch = epoch;
        req.v3_and_below_topics = topics_of(topics);
        auto resp = broker().call<add_partitions_to_txn_response>(req, version);
        EXPECT_ERROR(resp.error_code, error_code::none);
        return resp.results_by_topic_v3_and_below;
    }
    std::string _topic;
};

TEST_F(add_partitions_to_txn_test, v3_adds_every_partition) {
    const auto id = unique_name("apt-ok");
    auto init = init_txn(broker(), id);
    auto r = add_v3(id, init.producer_id.value(), init.producer_epoch, {{_topic, {0, 2}}});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].name, _topic);
    ASSERT_EQ(r[0].results_by_partition.size(), 2u);
    EXPECT_ERROR(code_of(r, _topic, 0), error_code::none);
    EXPECT_ERROR(code_of(r, _topic, 2), error_code::none);
    // Again: already in the transaction, still NONE.
    r = add_v3(id, init.producer_id.value(), init.producer_epoch, {{_topic, {0}}});
    EXPECT_ERROR(code_of(r, _topic, 0), error_code::none);
}

TEST_F(add_partitions_to_txn_test, unknown_partition_fails_it_and_the_others_are_not_attempted) {
    const auto id = unique_name("apt-unknown");
    auto init = init_txn(broker(), id);
    const auto missing = unique_name("apt-missing");
    auto r = add_v3(id, init.producer_id.value(), init.producer_epoch,
                    {{_topic, {0, 7}}, {missing, {0}}});
    EXPECT_ERROR(code_of(r, _topic, 0), error_code::operation_not_attempted);
    EXPECT_ERROR(code_of(r, _topic, 7), error_code::unknown_topic_or_partition);
    EXPECT_ERROR(code_of(r, missing, 0), error_code::unknown_topic_or_partition);
    // Nothing was added: partition 0 does not verify (the transaction is still Empty).
    add_partitions_to_txn_request verify;
    auto& t = verify.transactions.emplace_back();
    t.transactional_id = id;
    t.producer_id = init.producer_id;
    t.producer_epoch = init.producer_epoch;
    t.verify_only = true;
    t.topics = topics_of({{_topic, {0}}});
    auto resp = broker().call<add_partitions_to_txn_response>(verify, 4);
    ASSERT_EQ(resp.results_by_transaction.size(), 1u);
    EXPECT_ERROR(code_of(resp.results_by_transaction[0].topic_results, _topic, 0),
                 error_code::invalid_txn_state);
}

TEST_F(add_partitions_to_txn_test, wrong_producer_id_is_invalid_producer_id_mapping) {
    const auto id = unique_name("apt-pid");
    auto init = init_txn(broker(), id);
    auto r = add_v3(id, init.producer_id.value() + 1000, init.producer_epoch, {{_topic, {0}}});
    EXPECT_ERROR(code_of(r, _topic, 0), error_code::invalid_producer_id_mapping);
}

TEST_F(add_partitions_to_txn_test, stale_epoch_is_producer_fenced_from_v2) {
    const auto id = unique_name("apt-fenced");
    auto first = init_txn(broker(), id);
    auto second = init_txn(broker(), id);
    ASSERT_EQ(second.producer_epoch, first.producer_epoch + 1);
    for (int16_t v : {2, 3}) {
        auto r = add_v3(id, first.producer_id.value(), first.producer_epoch, {{_topic, {0}}}, v);
        EXPECT_ERROR(code_of(r, _topic, 0), error_code::producer_fenced) << "v" << v;
    }
}

TEST_F(add_partitions_to_txn_test, stale_epoch_is_invalid_producer_epoch_before_v2) {
    const auto id = unique_name("apt-fenced-old");
    auto first = init_txn(broker(), id);
    init_txn(broker(), id);
    for (int16_t v : {0, 1}) {
        auto r = add_v3(id, first.producer_id.value(), first.producer_epoch, {{_topic, {1}}}, v);
        EXPECT_ERROR(code_of(r, _topic, 1), error_code::invalid_producer_epoch) << "v" << v;
    }
}

TEST_F(add_partitions_to_txn_test, v4_batches_transactions_and_verify_only_adds_nothing) {
    const auto a = unique_name("apt-v4-a");
    const auto b = unique_name("apt-v4-b");
    auto ia = init_txn(broker(), a);
    auto ib = init_txn(broker(), b);
    add_partitions_to_txn_request req;
    auto& ta = req.transactions.emplace_back();
    ta.transactional_id = a;
    ta.producer_id = ia.producer_id;
    ta.producer_epoch = ia.producer_epoch;
    ta.topics = topics_of({{_topic, {0}}});
    auto& tb = req.transactions.emplace_back();
    tb.transactional_id = b;
    tb.producer_id = ib.producer_id;
    tb.producer_epoch = ib.producer_epoch;
    tb.verify_only = true;  // b has no transaction yet
    tb.topics = topics_of({{_topic, {1}}});
    auto resp = broker().call<add_partitions_to_txn_response>(req, 4);
    EXPECT_ERROR(resp.error_code, error_code::none);
    ASSERT_EQ(resp.results_by_transaction.size(), 2u);
    EXPECT_EQ(resp.results_by_transaction[0].transactional_id, a);
    EXPECT_ERROR(code_of(resp.results_by_transaction[0].topic_results, _topic, 0),
                 error_code::none);
    EXPECT_EQ(resp.results_by_transaction[1].transactional_id, b);
    EXPECT_ERROR(code_of(resp.results_by_transaction[1].topic_results, _topic, 1),
                 error_code::invalid_txn_state);

    // a now holds partition 0: verified. b still holds nothing.
    add_partitions_to_txn_request verify;
    auto& va = verify.transactions.emplace_back();
    va.transactional_id = a;
    va.producer_id = ia.producer_id;
    va.producer_epoch = ia.producer_epoch;
    va.verify_only = true;
    va.topics = topics_of({{_topic, {0}}});
    auto& vb = verify.transactions.emplace_back();
    vb = tb;
    resp = broker().call<add_partitions_to_txn_response>(verify, 4);
    ASSERT_EQ(resp.results_by_transaction.size(), 2u);
    EXPECT_ERROR(code_of(resp.results_by_transaction[0].topic_results, _topic, 0),
                 error_code::none);
    EXPECT_ERROR(code_of(resp.results_by_transaction[1].topic_results, _topic, 1),
                 error_code::invalid_txn_state);
}

// As Kafka's TransactionCoordinator.handleVerifyPartitionsInTransaction: each
// partition answers for itself, NONE for those the ongoing transaction holds,
// INVALID_TXN_STATE for the others.
TEST_F(add_partitions_to_txn_test, verify_only_answers_each_partition) {
    const auto id = unique_name("apt-verify-each");
    auto init = init_txn(broker(), id);
    ASSERT_ERROR(code_of(add_v3(id, init.producer_id.value(), init.producer_epoch, {{_topic, {0}}}),
                         _topic, 0),
                 error_code::none);
    add_partitions_to_txn_request req;
    auto& t = req.transactions.emplace_back();
    t.transactional_id = id;
    t.producer_id = init.producer_id;
    t.producer_epoch = init.producer_epoch;
    t.verify_only = true;
    t.topics = topics_of({{_topic, {0, 1}}});
    auto resp = broker().call<add_partitions_to_txn_response>(req, 4);
    ASSERT_EQ(resp.results_by_transaction.size(), 1u);
    const auto& r = resp.results_by_transaction[0].topic_results;
    EXPECT_ERROR(code_of(r, _topic, 0), error_code::none);
    EXPECT_ERROR(code_of(r, _topic, 1), error_code::invalid_txn_state);
}

}  // namespace
}  // namespace samsa::server::test
