// TxnOffsetCommit (key 28) against the in-process broker: offsets committed
// in a transaction are not visible to OffsetFetch (require_stable:
// UNSTABLE_OFFSET_COMMIT, KIP-447; otherwise the offset committed before)
// until the COMMIT marker reaches the group's __consumer_offsets partition,
// and are dropped by an ABORT; an unknown topic is UNKNOWN_TOPIC_OR_PARTITION.
#include <gtest/gtest.h>

#include "group_support.h"
#include "protocol/generated/add_offsets_to_txn_request.h"
#include "protocol/generated/add_offsets_to_txn_response.h"
#include "protocol/generated/end_txn_request.h"
#include "protocol/generated/end_txn_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"
#include "protocol/generated/txn_offset_commit_request.h"
#include "protocol/generated/txn_offset_commit_response.h"
#include "txn_support.h"

namespace samsa::server::test {
namespace {

using protocol::offset_fetch_request;
using protocol::offset_fetch_response;
using protocol::txn_offset_commit_request;
using protocol::txn_offset_commit_response;

class txn_offset_commit_test : public group_test {
  protected:
    void SetUp() override {
        group_test::SetUp();
        if (!HasFatalFailure()) {
            _topic = unique_name("toc-topic");
            broker().create_topic(_topic, 1);
        }
    }
    // InitProducerId and AddOffsetsToTxn for `group`.
    protocol::init_producer_id_response begin(const std::string& id, const std::string& group) {
        auto p = init_txn(broker(), id);
        protocol::add_offsets_to_txn_request req;
        req.transactional_id = id;
        req.producer_id = p.producer_id;
        req.producer_epoch = p.producer_epoch;
        req.group_id = group;
        EXPECT_ERROR(broker().call<protocol::add_offsets_to_txn_response>(req, 3).error_code,
                     error_code::none);
        return p;
    }
    int16_t txn_commit(const std::string& id, const protocol::init_producer_id_response& p,
                       const std::string& group, const std::string& topic, int64_t offset) {
        txn_offset_commit_request req;
        req.transactional_id = id;
        req.group_id = group;
        req.producer_id = p.producer_id;
        req.producer_epoch = p.producer_epoch;
        req.generation_id = -1;
        req.member_id = "";
        auto& t = req.topics.emplace_back();
        t.name = topic;
        auto& part = t.partitions.emplace_back();
        part.partition_index = 0;
        part.committed_offset = offset;
        part.committed_metadata = "txn";
        auto resp = broker().call<txn_offset_commit_response>(req, 3);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected TxnOffsetCommit answer";
            return -1;
        }
        return resp.topics[0].partitions[0].error_code;
    }
    int16_t end(const std::string& id, const protocol::init_producer_id_response& p, bool commit) {
        protocol::end_txn_request req;
        req.transactional_id = id;
        req.producer_id = p.producer_id;
        req.producer_epoch = p.producer_epoch;
        req.committed = commit;
        return broker().call<protocol::end_txn_response>(req, 3).error_code;
    }
    // OffsetFetch v7 of partition 0: (error, offset).
    std::pair<int16_t, int64_t> fetch(const std::string& group, bool require_stable) {
        offset_fetch_request req;
        req.group_id = group;
        req.require_stable = require_stable;
        auto& t = req.topics->emplace_back();
        t.name = _topic;
        t.partition_indexes = {0};
        auto resp = broker().call<offset_fetch_response>(req, 7);
        EXPECT_ERROR(resp.error_code, error_code::none);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected OffsetFetch answer";
            return {-1, -1};
        }
        return {resp.topics[0].partitions[0].error_code,
                resp.topics[0].partitions[0].committed_offset};
    }
    // Polls OffsetFetch(require_stable) until the offset is stable.
    std::pair<int16_t, int64_t> fetch_when_stable(const std::string& group) {
        std::pair<int16_t, int64_t> r;
        const bool stable = broker_fixture::wait_until([&] {
            r = fetch(group, true);
            return r.first != int16_t(error_code::unstable_offset_commit);
        });
        EXPECT_TRUE(stable) << "the offset stayed UNSTABLE_OFFSET_COMMIT";
        return r;
    }
    std::string _topic;
};

TEST_F(txn_offset_commit_test, offsets_show_once_the_commit_marker_reaches_the_group) {
    const auto id = unique_name("toc-commit");
    const auto group = unique_name("toc-group");
    ASSERT_ERROR(commit(broker(), group, _topic, 0, 5), error_code::none);  // before
    auto p = begin(id, group);
    ASSERT_ERROR(txn_commit(id, p, group, _topic, 42), error_code::none);

    auto pending = fetch(group, true);
    EXPECT_ERROR(pending.first, error_code::unstable_offset_commit);
    auto old = fetch(group, false);
    EXPECT_ERROR(old.first, error_code::none);
    EXPECT_EQ(old.second, 5);

    ASSERT_ERROR(end(id, p, true), error_code::none);
    auto done = fetch_when_stable(group);
    EXPECT_ERROR(done.first, error_code::none);
    EXPECT_EQ(done.second, 42);
    EXPECT_EQ(fetch(group, false).second, 42);
}

TEST_F(txn_offset_commit_test, offsets_are_dropped_by_an_abort) {
    const auto id = unique_name("toc-abort");
    const auto group = unique_name("toc-group");
    auto p = begin(id, group);
    ASSERT_ERROR(txn_commit(id, p, group, _topic, 42), error_code::none);
    EXPECT_ERROR(fetch(group, true).first, error_code::unstable_offset_commit);
    EXPECT_EQ(fetch(group, false).second, -1);

    ASSERT_ERROR(end(id, p, false), error_code::none);
    auto done = fetch_when_stable(group);
    EXPECT_ERROR(done.first, error_code::none);
    EXPECT_EQ(done.second, -1);
}

TEST_F(txn_offset_commit_test, unknown_topic_is_unknown_topic_or_partition) {
    const auto id = unique_name("toc-unknown");
    const auto group = unique_name("toc-group");
    auto p = begin(id, group);
    EXPECT_ERROR(txn_commit(id, p, group, unique_name("toc-missing"), 1),
                 error_code::unknown_topic_or_partition);
}

}  // namespace
}  // namespace samsa::server::test
