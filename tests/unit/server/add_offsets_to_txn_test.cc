// AddOffsetsToTxn (key 25) against the in-process broker: the group's
// __consumer_offsets partition joins the transaction (a KIP-890
// verification of it then succeeds); a stale epoch is PRODUCER_FENCED
// (INVALID_PRODUCER_EPOCH before v2), an unknown producer id
// INVALID_PRODUCER_ID_MAPPING.
#include <gtest/gtest.h>

#include "group_support.h"
#include "protocol/generated/add_offsets_to_txn_request.h"
#include "protocol/generated/add_offsets_to_txn_response.h"
#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "txn_support.h"

namespace samsa::server::test {
namespace {

using protocol::add_offsets_to_txn_request;
using protocol::add_offsets_to_txn_response;

class add_offsets_to_txn_test : public group_test {
  protected:
    int16_t add_offsets(const std::string& id, int64_t pid, int16_t epoch, const std::string& group,
                        int16_t version = 3) {
        add_offsets_to_txn_request req;
        req.transactional_id = id;
        req.producer_id = producer_id{pid};
        req.producer_epoch = epoch;
        req.group_id = group;
        return broker().call<add_offsets_to_txn_response>(req, version).error_code;
    }
    // AddPartitionsToTxn v4 verify_only of __consumer_offsets-0 (the only
    // partition: offsets.topic.num.partitions=1).
    int16_t verify_offsets_partition(const std::string& id, int64_t pid, int16_t epoch) {
        protocol::add_partitions_to_txn_request req;
        auto& t = req.transactions.emplace_back();
        t.transactional_id = id;
        t.producer_id = producer_id{pid};
        t.producer_epoch = epoch;
        t.verify_only = true;
        auto& topic = t.topics.emplace_back();
        topic.name = "__consumer_offsets";
        topic.partitions = {0};
        auto resp = broker().call<protocol::add_partitions_to_txn_response>(req, 4);
        if (resp.results_by_transaction.size() != 1 ||
            resp.results_by_transaction[0].topic_results.size() != 1 ||
            resp.results_by_transaction[0].topic_results[0].results_by_partition.size() != 1) {
            ADD_FAILURE() << "unexpected AddPartitionsToTxn answer";
            return -1;
        }
        return resp.results_by_transaction[0]
            .topic_results[0]
            .results_by_partition[0]
            .partition_error_code;
    }
};

TEST_F(add_offsets_to_txn_test, adds_the_groups_offsets_partition) {
    const auto id = unique_name("aot-ok");
    auto p = init_txn(broker(), id);
    EXPECT_ERROR(verify_offsets_partition(id, p.producer_id.value(), p.producer_epoch),
                 error_code::invalid_txn_state);
    EXPECT_ERROR(add_offsets(id, p.producer_id.value(), p.producer_epoch, unique_name("aot-group")),
                 error_code::none);
    EXPECT_ERROR(verify_offsets_partition(id, p.producer_id.value(), p.producer_epoch),
                 error_code::none);
}

TEST_F(add_offsets_to_txn_test, wrong_producer_id_is_invalid_producer_id_mapping) {
    const auto id = unique_name("aot-pid");
    auto p = init_txn(broker(), id);
    EXPECT_ERROR(
        add_offsets(id, p.producer_id.value() + 1000, p.producer_epoch, unique_name("aot-g")),
        error_code::invalid_producer_id_mapping);
}

TEST_F(add_offsets_to_txn_test, stale_epoch_is_producer_fenced_from_v2) {
    const auto id = unique_name("aot-fenced");
    auto first = init_txn(broker(), id);
    init_txn(broker(), id);
    const auto group = unique_name("aot-g");
    EXPECT_ERROR(add_offsets(id, first.producer_id.value(), first.producer_epoch, group, 2),
                 error_code::producer_fenced);
    EXPECT_ERROR(add_offsets(id, first.producer_id.value(), first.producer_epoch, group, 1),
                 error_code::invalid_producer_epoch);
}

}  // namespace
}  // namespace samsa::server::test
