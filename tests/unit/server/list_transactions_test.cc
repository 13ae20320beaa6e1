// ListTransactions (key 66) against the in-process broker, as Kafka's
// TransactionStateManager.listTransactionStates answers: state filters by
// Kafka's state names (case-sensitive; unknown ones are echoed in
// UnknownStateFilters and select nothing), producer id filters, and the v1
// duration filter (KIP-994: only transactions open longer than it), which v0
// does not carry.
#include <gtest/gtest.h>

#include <algorithm>

#include "protocol/generated/add_partitions_to_txn_request.h"
#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/list_transactions_request.h"
#include "protocol/generated/list_transactions_response.h"
#include "txn_support.h"

namespace samsa::server::test {
namespace {

using protocol::list_transactions_request;
using protocol::list_transactions_response;
using listed = list_transactions_response::transaction_state_data;

class list_transactions_test : public broker_test {
  protected:
    // One Empty transactional id (after InitProducerId) and one Ongoing (a
    // partition added), shared by the tests of this suite.
    void SetUp() override {
        broker_test::SetUp();
        if (HasFatalFailure()) {
            return;
        }
        _empty_id = unique_name("ltx-empty");
        _empty = init_txn(broker(), _empty_id);
        ASSERT_ERROR(_empty.error_code, error_code::none);
        _ongoing_id = unique_name("ltx-ongoing");
        _ongoing = init_txn(broker(), _ongoing_id);
        ASSERT_ERROR(_ongoing.error_code, error_code::none);
        const auto topic = unique_name("ltx-topic");
        broker().create_topic(topic);
        protocol::add_partitions_to_txn_request add;
        add.v3_and_below_transactional_id = _ongoing_id;
        add.v3_and_below_producer_id = _ongoing.producer_id;
        add.v3_and_below_producer_epoch = _ongoing.producer_epoch;
        auto& t = add.v3_and_below_topics.emplace_back();
        t.name = topic;
        t.partitions = {0};
        auto added = broker().call<protocol::add_partitions_to_txn_response>(add, 3);
        ASSERT_EQ(added.results_by_topic_v3_and_below.size(), 1u);
        ASSERT_ERROR(
            added.results_by_topic_v3_and_below[0].results_by_partition.at(0).partition_error_code,
            error_code::none);
    }

    list_transactions_response list(const list_transactions_request& req, int16_t version = 1) {
        auto resp = broker().call<list_transactions_response>(req, version);
        EXPECT_ERROR(resp.error_code, error_code::none);
        return resp;
    }
    static const listed* find(const list_transactions_response& r, const std::string& id) {
        auto it = std::find_if(r.transaction_states.begin(), r.transaction_states.end(),
                               [&](const auto& s) { return s.transactional_id == id; });
        return it == r.transaction_states.end() ? nullptr : &*it;
    }

    std::string _empty_id;
    std::string _ongoing_id;
    protocol::init_producer_id_response _empty;
    protocol::init_producer_id_response _ongoing;
};

TEST_F(list_transactions_test, no_filter_lists_both_with_their_state) {
    auto resp = list({});
    EXPECT_TRUE(resp.unknown_state_filters.empty());
    const auto* e = find(resp, _empty_id);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->transaction_state, "Empty");
    EXPECT_EQ(e->producer_id, _empty.producer_id);
    const auto* o = find(resp, _ongoing_id);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->transaction_state, "Ongoing");
    EXPECT_EQ(o->producer_id, _ongoing.producer_id);
}

TEST_F(list_transactions_test, a_state_filter_selects_by_kafkas_state_name) {
    list_transactions_request req;
    req.state_filters = {"Ongoing"};
    auto resp = list(req);
    EXPECT_TRUE(resp.unknown_state_filters.empty());
    EXPECT_NE(find(resp, _ongoing_id), nullptr);
    EXPECT_EQ(find(resp, _empty_id), nullptr);
    for (const auto& s : resp.transaction_states) {
        EXPECT_EQ(s.transaction_state, "Ongoing") << s.transactional_id;
    }
}

TEST_F(list_transactions_test, unknown_state_names_are_echoed_and_select_nothing) {
    list_transactions_request req;
    req.state_filters = {"ongoing", "Running"};
    auto resp = list(req);
    EXPECT_EQ(resp.unknown_state_filters, (std::vector<std::string>{"ongoing", "Running"}));
    // Not "no filter": no transaction is in a state of those names.
    EXPECT_TRUE(resp.transaction_states.empty());

    // A known name next to unknown ones still selects.
    req.state_filters = {"Bogus", "Empty"};
    resp = list(req);
    EXPECT_EQ(resp.unknown_state_filters, std::vector<std::string>{"Bogus"});
    EXPECT_NE(find(resp, _empty_id), nullptr);
    EXPECT_EQ(find(resp, _ongoing_id), nullptr);
}

TEST_F(list_transactions_test, a_producer_id_filter_selects) {
    list_transactions_request req;
    req.producer_id_filters = {_empty.producer_id};
    auto resp = list(req);
    ASSERT_EQ(resp.transaction_states.size(), 1u);
    EXPECT_EQ(resp.transaction_states[0].transactional_id, _empty_id);

    req.producer_id_filters = {producer_id{-42}};
    EXPECT_TRUE(list(req).transaction_states.empty());
}

TEST_F(list_transactions_test, the_duration_filter_is_v1_only) {
    list_transactions_request req;
    req.state_filters = {"Ongoing"};
    req.producer_id_filters = {_ongoing.producer_id};
    req.duration_filter = 3'600'000;  // open for more than an hour: not this one
    EXPECT_EQ(find(list(req, 1), _ongoing_id), nullptr);
    // v0 has no duration filter: the same request lists it.
    EXPECT_NE(find(list(req, 0), _ongoing_id), nullptr);
    // -1: no filter.
    req.duration_filter = -1;
    EXPECT_NE(find(list(req, 1), _ongoing_id), nullptr);
}

}  // namespace
}  // namespace samsa::server::test
