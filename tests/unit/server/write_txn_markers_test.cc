// WriteTxnMarkers (key 27) sent directly, as a transaction coordinator
// sends it to a partition leader: a marker for a producer's open transaction
// is NONE and moves the partition's last stable offset to the high
// watermark; a marker under an older coordinator epoch than the producer's
// last is TRANSACTION_COORDINATOR_FENCED; an unknown topic or partition
// UNKNOWN_TOPIC_OR_PARTITION.
#include <gtest/gtest.h>

#include <atomic>

#include "broker_fixture.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/write_txn_markers_request.h"
#include "protocol/generated/write_txn_markers_response.h"

namespace samsa::server::test {
namespace {

using protocol::write_txn_markers_request;
using protocol::write_txn_markers_response;
using partition_data = protocol::fetch_response::fetchable_topic_response::partition_data;

// Producer ids of this file's own, far above what the broker hands out.
int64_t fresh_producer_id() {
    static std::atomic<int64_t> next{7'000'000'000};
    return next++;
}

class write_txn_markers_test : public broker_test {
  protected:
    void SetUp() override {
        broker_test::SetUp();
        if (!HasFatalFailure()) {
            _topic = unique_name("wtm-topic");
            broker().create_topic(_topic, 2);
        }
    }
    // A transactional batch of `pid` (epoch 0) to partition `p`, without a
    // transactional id in the request (no coordinator involved).
    void produce_txn(int64_t pid, int32_t p, int n, int32_t base_sequence = 0) {
        record::batch_options o;
        o.producer_id = pid;
        o.producer_epoch = 0;
        o.base_sequence = base_sequence;
        o.transactional = true;
        _batches.push_back(make_batch(n, o));
        protocol::produce_request req;
        req.acks = -1;
        req.timeout_ms = 30000;
        auto& t = req.topic_data.emplace_back();
        t.name = _topic;
        auto& part = t.partition_data.emplace_back();
        part.index = p;
        part.records = protocol::records::view(_batches.back());
        auto resp = broker().call<protocol::produce_response>(req, 9);
        ASSERT_EQ(resp.responses.size(), 1u);
        ASSERT_EQ(resp.responses[0].partition_responses.size(), 1u);
        ASSERT_ERROR(resp.responses[0].partition_responses[0].error_code, error_code::none);
    }
    write_txn_markers_response markers(int64_t pid, bool commit, int32_t coordinator_epoch,
                                       const std::string& topic, std::vector<int32_t> partitions) {
        write_txn_markers_request req;
        auto& m = req.markers.emplace_back();
        m.producer_id = producer_id{pid};
        m.producer_epoch = 0;
        m.transaction_result = commit;
        m.coordinator_epoch = coordinator_epoch;
        auto& t = m.topics.emplace_back();
        t.name = topic;
        t.partition_indexes = std::move(partitions);
        return broker().call<write_txn_markers_response>(req, 1);
    }
    // The one partition's error of a one-marker, one-topic answer.
    static int16_t code(const write_txn_markers_response& r, size_t i = 0) {
        if (r.markers.size() != 1 || r.markers[0].topics.size() != 1 ||
            r.markers[0].topics[0].partitions.size() <= i) {
            ADD_FAILURE() << "unexpected WriteTxnMarkers answer";
            return -1;
        }
        return r.markers[0].topics[0].partitions[i].error_code;
    }
    partition_data fetch_committed(int32_t p) {
        protocol::fetch_request req;
        req.replica_id = no_node;
        req.max_wait_ms = 0;
        req.min_bytes = 0;
        req.max_bytes = 1 << 20;
        req.isolation_level = 1;
        req.session_id = 0;
        req.session_epoch = -1;
        auto& t = req.topics.emplace_back();
        t.topic = _topic;
        auto& fp = t.partitions.emplace_back();
        fp.partition = p;
        fp.fetch_offset = 0;
        fp.partition_max_bytes = 1 << 20;
        auto resp = broker().call<protocol::fetch_response>(req, 12);
        if (resp.responses.size() != 1 || resp.responses[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected Fetch answer";
            return {};
        }
        return resp.responses[0].partitions[0];
    }
    std::string _topic;
    std::vector<bytes> _batches;
};

TEST_F(write_txn_markers_test, commit_marker_moves_the_last_stable_offset) {
    const int64_t pid = fresh_producer_id();
    produce_txn(pid, 0, 3);
    auto before = fetch_committed(0);
    EXPECT_EQ(before.high_watermark, 3);
    EXPECT_EQ(before.last_stable_offset, 0);

    auto r = markers(pid, true, 5, _topic, {0});
    ASSERT_EQ(r.markers.size(), 1u);
    EXPECT_EQ(r.markers[0].producer_id.value(), pid);
    ASSERT_EQ(r.markers[0].topics.size(), 1u);
    EXPECT_EQ(r.markers[0].topics[0].name, _topic);
    EXPECT_EQ(r.markers[0].topics[0].partitions[0].partition_index, 0);
    EXPECT_ERROR(code(r), error_code::none);

    // Answered once replicated: the marker is below the high watermark now.
    auto after = fetch_committed(0);
    EXPECT_EQ(after.high_watermark, 4);
    EXPECT_EQ(after.last_stable_offset, 4);
    EXPECT_GT(after.records.size(), 0u);
    ASSERT_TRUE(after.aborted_transactions.has_value());
    EXPECT_TRUE(after.aborted_transactions->empty());
}

TEST_F(write_txn_markers_test, abort_marker_lists_the_transaction_as_aborted) {
    const int64_t pid = fresh_producer_id();
    produce_txn(pid, 1, 2);
    EXPECT_ERROR(code(markers(pid, false, 5, _topic, {1})), error_code::none);
    auto after = fetch_committed(1);
    EXPECT_EQ(after.last_stable_offset, after.high_watermark);
    ASSERT_TRUE(after.aborted_transactions.has_value());
    ASSERT_EQ(after.aborted_transactions->size(), 1u);
    EXPECT_EQ((*after.aborted_transactions)[0].producer_id.value(), pid);
    EXPECT_EQ((*after.aborted_transactions)[0].first_offset, 0);
}

TEST_F(write_txn_markers_test, older_coordinator_epoch_is_transaction_coordinator_fenced) {
    const int64_t pid = fresh_producer_id();
    produce_txn(pid, 0, 1);
    ASSERT_ERROR(code(markers(pid, true, 5, _topic, {0})), error_code::none);
    produce_txn(pid, 0, 1, 1);
    EXPECT_ERROR(code(markers(pid, true, 4, _topic, {0})),
                 error_code::transaction_coordinator_fenced);
    // The same epoch (or a newer one) is accepted.
    EXPECT_ERROR(code(markers(pid, true, 5, _topic, {0})), error_code::none);
    auto after = fetch_committed(0);
    EXPECT_EQ(after.last_stable_offset, after.high_watermark);
}

TEST_F(write_txn_markers_test, unknown_topic_or_partition_is_unknown_topic_or_partition) {
    const int64_t pid = fresh_producer_id();
    EXPECT_ERROR(code(markers(pid, true, 0, unique_name("wtm-missing"), {0})),
                 error_code::unknown_topic_or_partition);
    auto r = markers(pid, true, 0, _topic, {7, 0});
    EXPECT_ERROR(code(r, 0), error_code::unknown_topic_or_partition);
    EXPECT_ERROR(code(r, 1), error_code::none);  // a marker with no open transaction is harmless
}

TEST_F(write_txn_markers_test, several_markers_are_answered_each) {
    const int64_t a = fresh_producer_id();
    const int64_t b = fresh_producer_id();
    produce_txn(a, 0, 1);
    produce_txn(b, 1, 1);
    write_txn_markers_request req;
    for (auto [pid, p] : {std::pair<int64_t, int32_t>{a, 0}, {b, 1}}) {
        auto& m = req.markers.emplace_back();
        m.producer_id = producer_id{pid};
        m.producer_epoch = 0;
        m.transaction_result = true;
        m.coordinator_epoch = 1;
        auto& t = m.topics.emplace_back();
        t.name = _topic;
        t.partition_indexes = {p};
    }
    auto r = broker().call<write_txn_markers_response>(req, 0);
    ASSERT_EQ(r.markers.size(), 2u);
    EXPECT_EQ(r.markers[0].producer_id.value(), a);
    EXPECT_EQ(r.markers[1].producer_id.value(), b);
    for (const auto& m : r.markers) {
        ASSERT_EQ(m.topics.size(), 1u);
        ASSERT_EQ(m.topics[0].partitions.size(), 1u);
        EXPECT_ERROR(m.topics[0].partitions[0].error_code, error_code::none);
    }
    EXPECT_EQ(fetch_committed(0).last_stable_offset, fetch_committed(0).high_watermark);
    EXPECT_EQ(fetch_committed(1).last_stable_offset, fetch_committed(1).high_watermark);
}

}  // namespace
}  // namespace samsa::server::test
