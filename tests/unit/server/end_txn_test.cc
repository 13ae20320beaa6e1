// EndTxn (key 26) against the in-process broker, end to end: a transactional
// batch produced into a partition added to the transaction stays above the
// last stable offset until EndTxn(commit) has its marker written, then a
// read_committed Fetch (isolation_level 1) sees it with last_stable_offset =
// high watermark; an abort shows in the Fetch's aborted_transactions. EndTxn
// on a transaction not begun is INVALID_TXN_STATE, a stale epoch
// PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before v2).
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/end_txn_request.h"
#include "protocol/generated/end_txn_response.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "txn_support.h"

namespace samsa::server::test {
namespace {

using protocol::end_txn_request;
using protocol::end_txn_response;
using protocol::fetch_request;
using protocol::fetch_response;
using partition_data = fetch_response::fetchable_topic_response::partition_data;

class end_txn_test : public broker_test {
  protected:
    void SetUp() override {
        broker_test::SetUp();
        if (!HasFatalFailure()) {
            _topic = unique_name("et-topic");
            broker().create_topic(_topic, 1);
        }
    }
    int16_t add(const std::string& id, const protocol::init_producer_id_response& p) {
        protocol::add_partitions_to_txn_request req;
        req.v3_and_below_transactional_id = id;
        req.v3_and_below_producer_id = p.producer_id;
        req.v3_and_below_producer_epoch = p.producer_epoch;
        auto& t = req.v3_and_below_topics.emplace_back();
        t.name = _topic;
        t.partitions = {0};
        auto resp = broker().call<protocol::add_partitions_to_txn_response>(req, 3);
        if (resp.results_by_topic_v3_and_below.size() != 1 ||
            resp.results_by_topic_v3_and_below[0].results_by_partition.size() != 1) {
            ADD_FAILURE() << "unexpected AddPartitionsToTxn answer";
            return -1;
        }
        return resp.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code;
    }
    // Produce v9 of a transactional batch of `n` records.
    protocol::produce_response::topic_produce_response::partition_produce_response produce(
        const std::string& id, const protocol::init_producer_id_response& p, int n,
        int32_t base_sequence) {
        record::batch_options o;
        o.producer_id = p.producer_id.value();
        o.producer_epoch = p.producer_epoch;
        o.base_sequence = base_sequence;
        o.transactional = true;
        _batches.push_back(make_batch(n, o));
        protocol::produce_request req;
        req.transactional_id = id;
        req.acks = -1;
        req.timeout_ms = 30000;
        auto& t = req.topic_data.emplace_back();
        t.name = _topic;
        auto& part = t.partition_data.emplace_back();
        part.index = 0;
        part.records = protocol::records::view(_batches.back());
        auto resp = broker().call<protocol::produce_response>(req, 9);
        if (resp.responses.size() != 1 || resp.responses[0].partition_responses.size() != 1) {
            ADD_FAILURE() << "unexpected Produce answer";
            return {};
        }
        return resp.responses[0].partition_responses[0];
    }
    int16_t end(const std::string& id, int64_t pid, int16_t epoch, bool commit,
                int16_t version = 3) {
        end_txn_request req;
        req.transactional_id = id;
        req.producer_id = producer_id{pid};
        req.producer_epoch = epoch;
        req.committed = commit;
        end_txn_response resp;
        broker_fixture::wait_until([&] {
            resp = broker().call<end_txn_response>(req, version);
            return resp.error_code != int16_t(error_code::concurrent_transactions);
        });
        return resp.error_code;
    }
    // A read_committed (or read_uncommitted) Fetch v12 of partition 0 from `offset`.
    partition_data fetch(int64_t offset, int8_t isolation = 1) {
        fetch_request req;
        req.replica_id = no_node;
        req.max_wait_ms = 0;
        req.min_bytes = 0;
        req.max_bytes = 1 << 20;
        req.isolation_level = isolation;
        req.session_id = 0;
        req.session_epoch = -1;
        auto& t = req.topics.emplace_back();
        t.topic = _topic;
        auto& p = t.partitions.emplace_back();
        p.partition = 0;
        p.fetch_offset = offset;
        p.partition_max_bytes = 1 << 20;
        auto resp = broker().call<fetch_response>(req, 12);
        if (resp.responses.size() != 1 || resp.responses[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected Fetch answer";
            return {};
        }
        return resp.responses[0].partitions[0];
    }
    // Polls read_committed fetches until the partition has no open transaction.
    partition_data fetch_once_stable() {
        partition_data p;
        const bool stable = broker_fixture::wait_until([&] {
            p = fetch(0);
            return p.error_code == 0 && p.last_stable_offset == p.high_watermark;
        });
        EXPECT_TRUE(stable) << "LSO " << p.last_stable_offset << " HW " << p.high_watermark;
        return p;
    }
    std::string _topic;
    std::vector<bytes> _batches;
};

TEST_F(end_txn_test, committed_batch_is_read_committed_once_the_marker_is_written) {
    const auto id = unique_name("et-commit");
    auto p = init_txn(broker(), id);
    ASSERT_ERROR(add(id, p), error_code::none);
    auto produced = produce(id, p, 3, 0);
    ASSERT_ERROR(produced.error_code, error_code::none);
    EXPECT_EQ(produced.base_offset, 0);

    auto open = fetch(0);
    EXPECT_ERROR(open.error_code, error_code::none);
    EXPECT_EQ(open.high_watermark, 3);
    EXPECT_EQ(open.last_stable_offset, 0);
    EXPECT_EQ(open.records.size(), 0u);         // nothing below the LSO
    EXPECT_GT(fetch(0, 0).records.size(), 0u);  // read_uncommitted sees it

    EXPECT_ERROR(end(id, p.producer_id.value(), p.producer_epoch, true), error_code::none);
    auto done = fetch_once_stable();
    EXPECT_EQ(done.high_watermark, 4);  // the three records and the COMMIT marker
    EXPECT_EQ(done.last_stable_offset, done.high_watermark);
    EXPECT_GT(done.records.size(), 0u);
    ASSERT_TRUE(done.aborted_transactions.has_value());
    EXPECT_TRUE(done.aborted_transactions->empty());

    // The retry of a completed commit is NONE; an abort of it INVALID_TXN_STATE.
    EXPECT_ERROR(end(id, p.producer_id.value(), p.producer_epoch, true), error_code::none);
    EXPECT_ERROR(end(id, p.producer_id.value(), p.producer_epoch, false),
                 error_code::invalid_txn_state);
}

TEST_F(end_txn_test, aborted_batch_shows_in_aborted_transactions) {
    const auto id = unique_name("et-abort");
    auto p = init_txn(broker(), id);
    ASSERT_ERROR(add(id, p), error_code::none);
    ASSERT_ERROR(produce(id, p, 2, 0).error_code, error_code::none);
    EXPECT_ERROR(end(id, p.producer_id.value(), p.producer_epoch, false), error_code::none);
    auto done = fetch_once_stable();
    EXPECT_EQ(done.high_watermark, 3);
    ASSERT_TRUE(done.aborted_transactions.has_value());
    ASSERT_EQ(done.aborted_transactions->size(), 1u);
    EXPECT_EQ((*done.aborted_transactions)[0].producer_id, p.producer_id);
    EXPECT_EQ((*done.aborted_transactions)[0].first_offset, 0);
}

TEST_F(end_txn_test, a_second_transaction_after_a_commit_is_aborted_alone) {
    const auto id = unique_name("et-two");
    auto p = init_txn(broker(), id);
    ASSERT_ERROR(add(id, p), error_code::none);
    ASSERT_ERROR(produce(id, p, 2, 0).error_code, error_code::none);  // offsets 0-1
    ASSERT_ERROR(end(id, p.producer_id.value(), p.producer_epoch, true), error_code::none);  // 2
    fetch_once_stable();
    ASSERT_ERROR(add(id, p), error_code::none);
    ASSERT_ERROR(produce(id, p, 1, 2).error_code, error_code::none);  // offset 3
    ASSERT_ERROR(end(id, p.producer_id.value(), p.producer_epoch, false), error_code::none);  // 4
    auto done = fetch_once_stable();
    EXPECT_EQ(done.high_watermark, 5);
    ASSERT_TRUE(done.aborted_transactions.has_value());
    ASSERT_EQ(done.aborted_transactions->size(), 1u);
    EXPECT_EQ((*done.aborted_transactions)[0].producer_id, p.producer_id);
    EXPECT_EQ((*done.aborted_transactions)[0].first_offset, 3);
}

TEST_F(end_txn_test, end_without_a_transaction_is_invalid_txn_state) {
    const auto id = unique_name("et-empty");
    auto p = init_txn(broker(), id);
    EXPECT_ERROR(end(id, p.producer_id.value(), p.producer_epoch, true),
                 error_code::invalid_txn_state);
}

TEST_F(end_txn_test, wrong_producer_id_is_invalid_producer_id_mapping) {
    const auto id = unique_name("et-pid");
    auto p = init_txn(broker(), id);
    EXPECT_ERROR(end(id, p.producer_id.value() + 1000, p.producer_epoch, true),
                 error_code::invalid_producer_id_mapping);
}

TEST_F(end_txn_test, stale_epoch_is_producer_fenced_from_v2_and_invalid_producer_epoch_before) {
    const auto id = unique_name("et-fenced");
    auto first = init_txn(broker(), id);
    auto second = init_txn(broker(), id);
    ASSERT_EQ(second.producer_epoch, first.producer_epoch + 1);
    EXPECT_ERROR(end(id, first.producer_id.value(), first.producer_epoch, true, 2),
                 error_code::producer_fenced);
    EXPECT_ERROR(end(id, first.producer_id.value(), first.producer_epoch, true, 1),
                 error_code::invalid_producer_epoch);
}

}  // namespace
}  // namespace samsa::server::test
