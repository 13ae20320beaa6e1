// The idempotent producer's checks on append (storage/producer_state_manager.h),
// through log::append_as_leader as the produce path calls it: duplicates,
// sequence gaps, epochs, wrap at INT32_MAX, origins, transactions, expiry.
#include <gtest/gtest.h>

#include <limits>

#include "record/batch_builder.h"
#include "storage/log.h"
#include "storage/producer_batches.h"
#include "storage/temp_dir.h"

namespace samsa::storage {
namespace {

using record::append_origin;
using testing::end_txn_marker;
using testing::producer_batch;
using testing::producer_batch_spec;
using testing::temp_dir;
using testing::test_now_ms;

constexpr int32_t int32_max = std::numeric_limits<int32_t>::max();

struct idempotence : ::testing::Test {
    temp_dir root;
    std::shared_ptr<log> l;

    void SetUp() override {
        log_open_options o;
        o.dir = root.file("orders-0");
        o.tp = {"orders", 0};
        o.now_ms = test_now_ms;
        auto opened = log::open(o);
        ASSERT_TRUE(opened) << opened.err().message;
        l = *opened;
    }

    result<append_result> send(const producer_batch_spec& s,
                               append_origin origin = append_origin::client) {
        auto b = producer_batch(s);
        return l->append_as_leader(b, 0, test_now_ms, origin);
    }

    // Appends and expects success; returns the first offset.
    int64_t ok(const producer_batch_spec& s) {
        auto r = send(s);
        EXPECT_TRUE(r) << r.err().message;
        EXPECT_FALSE(r && r->duplicate);
        return r ? r->first_offset : -1;
    }

    error_code fails(const producer_batch_spec& s, append_origin origin = append_origin::client) {
        const int64_t leo = l->log_end_offset();
        auto before = l->producer_state().producers();
        auto r = send(s, origin);
        EXPECT_FALSE(r);
        // A rejected append writes nothing and changes no state.
        EXPECT_EQ(l->log_end_offset(), leo);
        EXPECT_EQ(l->producer_state().producers(), before);
        return r ? error_code::none : r.err().code;
    }

    const producer_state_entry& entry(int64_t id) const {
        const auto* e = l->producer_state().find(id);
        EXPECT_NE(e, nullptr);
        static const producer_state_entry none;
        return e ? *e : none;
    }
};

TEST(sequence_arithmetic, wraps_at_int32_max_as_kafka_does) {
    EXPECT_EQ(increment_sequence(5, 3), 8);
    EXPECT_EQ(increment_sequence(int32_max, 1), 0);
    EXPECT_EQ(increment_sequence(int32_max - 1, 3), 1);
    EXPECT_EQ(decrement_sequence(1, 3), int32_max - 1);
    EXPECT_EQ(decrement_sequence(0, 1), int32_max);
    EXPECT_EQ(decrement_sequence(8, 3), 5);
    EXPECT_TRUE(in_sequence(4, 5));
    EXPECT_TRUE(in_sequence(int32_max, 0));
    EXPECT_TRUE(in_sequence(-1, 0));
    EXPECT_FALSE(in_sequence(4, 6));
    EXPECT_FALSE(in_sequence(4, 4));
    EXPECT_FALSE(in_sequence(int32_max - 1, 0));
}

TEST_F(idempotence, first_batch_of_a_producer_is_recorded) {
    EXPECT_EQ(ok({.base_sequence = 0, .records = 3}), 0);
    const auto& e = entry(1000);
    EXPECT_EQ(e.producer_epoch, 0);
    EXPECT_EQ(e.last_seq(), 2);
    EXPECT_EQ(e.last_data_offset(), 2);
    ASSERT_EQ(e.batches.size(), 1u);
    EXPECT_EQ(e.batches[0], (batch_metadata{2, 2, 2, test_now_ms + 2}));
    EXPECT_EQ(e.last_timestamp, test_now_ms + 2);
    EXPECT_FALSE(e.current_txn_first_offset);
}

TEST_F(idempotence, next_batch_must_follow_the_last_sequence) {
    ok({.base_sequence = 0, .records = 3});
    EXPECT_EQ(ok({.base_sequence = 3, .records = 2}), 3);
    EXPECT_EQ(fails({.base_sequence = 7}), error_code::out_of_order_sequence_number);
    EXPECT_EQ(fails({.base_sequence = 4}), error_code::out_of_order_sequence_number);
    EXPECT_EQ(ok({.base_sequence = 5}), 5);
    EXPECT_EQ(entry(1000).last_seq(), 5);
}

TEST_F(idempotence, retries_of_the_last_five_batches_get_their_original_offsets) {
    std::vector<int64_t> firsts;
    for (int i = 0; i < 7; ++i) {
        firsts.push_back(ok({.base_sequence = 2 * i, .records = 2}));
    }
    EXPECT_EQ(entry(1000).batches.size(), max_retained_batches);
    const int64_t leo = l->log_end_offset();
    for (int i = 2; i < 7; ++i) {
        auto r = send({.base_sequence = 2 * i, .records = 2});
        ASSERT_TRUE(r) << r.err().message;
        EXPECT_TRUE(r->duplicate);
        EXPECT_EQ(r->first_offset, firsts[size_t(i)]);
        EXPECT_EQ(r->last_offset, firsts[size_t(i)] + 1);
        // Kafka answers the original batch's timestamp as the log append time.
        EXPECT_EQ(r->log_append_time_ms, test_now_ms + 1);
        EXPECT_EQ(l->log_end_offset(), leo);
    }
    // Older than the last five: no longer recognised, and not in sequence.
    EXPECT_EQ(fails({.base_sequence = 2, .records = 2}), error_code::out_of_order_sequence_number);
    // Same first sequence, different length: not the same batch.
    EXPECT_EQ(fails({.base_sequence = 12, .records = 1}), error_code::out_of_order_sequence_number);
    EXPECT_EQ(ok({.base_sequence = 14}), leo);
}

TEST_F(idempotence, an_older_epoch_is_invalid_producer_epoch) {
    ok({.epoch = 3, .base_sequence = 0});
    EXPECT_EQ(fails({.epoch = 2, .base_sequence = 1}), error_code::invalid_producer_epoch);
    // A retry of a batch of the old epoch is no duplicate: the epoch differs.
    EXPECT_EQ(fails({.epoch = 2, .base_sequence = 0}), error_code::invalid_producer_epoch);
}

TEST_F(idempotence, a_new_epoch_starts_at_sequence_zero_and_forgets_the_old_batches) {
    ok({.epoch = 0, .base_sequence = 0, .records = 5});
    ok({.epoch = 0, .base_sequence = 5});
    EXPECT_EQ(fails({.epoch = 1, .base_sequence = 6}), error_code::out_of_order_sequence_number);
    EXPECT_EQ(ok({.epoch = 1, .base_sequence = 0, .records = 2}), 6);
    const auto& e = entry(1000);
    EXPECT_EQ(e.producer_epoch, 1);
    ASSERT_EQ(e.batches.size(), 1u);
    EXPECT_EQ(e.last_seq(), 1);
    // A retry of the old epoch's batch is fenced, not a duplicate.
    EXPECT_EQ(fails({.epoch = 0, .base_sequence = 5}), error_code::invalid_producer_epoch);
}

TEST_F(idempotence, a_producer_without_state_may_start_at_any_sequence) {
    // Kafka >= 2.5 (KIP-360): its state may have expired; no UNKNOWN_PRODUCER_ID.
    EXPECT_EQ(ok({.producer_id = 2000, .epoch = 4, .base_sequence = 42}), 0);
    EXPECT_EQ(entry(2000).last_seq(), 42);
    EXPECT_EQ(fails({.producer_id = 2000, .epoch = 4, .base_sequence = 44}),
              error_code::out_of_order_sequence_number);
    ok({.producer_id = 2000, .epoch = 4, .base_sequence = 43});
}

TEST_F(idempotence, sequences_wrap_at_int32_max) {
    ok({.base_sequence = int32_max - 4, .records = 3});  // ..int32_max - 2
    // A batch across the wrap: int32_max - 1, int32_max, 0.
    const int64_t across = ok({.base_sequence = int32_max - 1, .records = 3});
    EXPECT_EQ(entry(1000).last_seq(), 0);
    EXPECT_EQ(entry(1000).batches.back().first_seq(), int32_max - 1);
    auto dup = send({.base_sequence = int32_max - 1, .records = 3});
    ASSERT_TRUE(dup);
    EXPECT_TRUE(dup->duplicate);
    EXPECT_EQ(dup->first_offset, across);
    EXPECT_EQ(fails({.base_sequence = 2}), error_code::out_of_order_sequence_number);
    ok({.base_sequence = 1, .records = 2});
    // A batch ending exactly at int32_max is followed by 0.
    ok({.producer_id = 3000, .base_sequence = int32_max - 1, .records = 2});
    EXPECT_EQ(entry(3000).last_seq(), int32_max);
    EXPECT_EQ(fails({.producer_id = 3000, .base_sequence = 1}),
              error_code::out_of_order_sequence_number);
    ok({.producer_id = 3000, .base_sequence = 0});
}

TEST_F(idempotence, producers_are_checked_independently) {
    ok({.producer_id = 1, .base_sequence = 0});
    ok({.producer_id = 2, .base_sequence = 0});
    ok({.producer_id = 1, .base_sequence = 1});
    EXPECT_EQ(fails({.producer_id = 2, .base_sequence = 2}),
              error_code::out_of_order_sequence_number);
    ok({.producer_id = 2, .base_sequence = 1});
    EXPECT_EQ(l->producer_state().producers().size(), 2u);
}

TEST_F(idempotence, batches_of_one_append_are_checked_in_order_and_all_or_nothing) {
    auto blob = producer_batch({.base_sequence = 0, .records = 2});
    auto second = producer_batch({.base_sequence = 2, .records = 2});
    blob.insert(blob.end(), second.begin(), second.end());
    auto r = l->append_as_leader(blob, 0, test_now_ms);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->last_offset, 3);
    EXPECT_EQ(entry(1000).batches.size(), 2u);

    auto gap = producer_batch({.base_sequence = 4});
    auto after_gap = producer_batch({.base_sequence = 9});
    gap.insert(gap.end(), after_gap.begin(), after_gap.end());
    auto before = l->producer_state().producers();
    auto bad = l->append_as_leader(gap, 0, test_now_ms);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.err().code, error_code::out_of_order_sequence_number);
    EXPECT_EQ(l->log_end_offset(), 4);
    EXPECT_EQ(l->producer_state().producers(), before);
}

TEST_F(idempotence, followers_take_producer_state_unchecked) {
    ok({.epoch = 2, .base_sequence = 0});
    // The leader's batches as a follower receives them: offsets assigned. An
    // older epoch and a gap are taken as they come.
    auto b = producer_batch({.epoch = 1, .base_sequence = 9});
    ASSERT_TRUE(record::stamp_base_offset_and_epoch(b, l->log_end_offset(), 0));
    ASSERT_TRUE(l->append_as_follower(b, test_now_ms));
    EXPECT_EQ(entry(1000).producer_epoch, 1);
    EXPECT_EQ(entry(1000).last_seq(), 9);
    auto again = producer_batch({.epoch = 1, .base_sequence = 9});
    ASSERT_TRUE(record::stamp_base_offset_and_epoch(again, l->log_end_offset(), 0));
    ASSERT_TRUE(l->append_as_follower(again, test_now_ms));  // no duplicate detection
    EXPECT_EQ(l->log_end_offset(), 3);
}

TEST_F(idempotence, coordinator_appends_check_epochs_only) {
    ok({.epoch = 2, .base_sequence = 0});
    auto r = send({.epoch = 2, .base_sequence = 17}, append_origin::coordinator);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(fails({.epoch = 1, .base_sequence = 18}, append_origin::coordinator),
              error_code::invalid_producer_epoch);
}

TEST_F(idempotence, transactions_open_with_a_transactional_batch_and_close_with_a_marker) {
    ok({.base_sequence = 0, .records = 2, .transactional = true});
    EXPECT_EQ(entry(1000).current_txn_first_offset, 0);
    ok({.base_sequence = 2, .transactional = true});
    EXPECT_EQ(entry(1000).current_txn_first_offset, 0);
    EXPECT_EQ(fails({.base_sequence = 3}), error_code::invalid_txn_state);
    auto marker = end_txn_marker(1000, 0, true, 5);
    auto m = l->append_as_leader(marker, 0, test_now_ms, append_origin::coordinator);
    ASSERT_TRUE(m) << m.err().message;
    EXPECT_FALSE(entry(1000).current_txn_first_offset);
    EXPECT_EQ(entry(1000).coordinator_epoch, 5);
    EXPECT_EQ(entry(1000).last_seq(), 2);  // the marker keeps the batches
    ok({.base_sequence = 3});
    auto zombie = end_txn_marker(1000, 0, false, 4);
    auto z = l->append_as_leader(zombie, 0, test_now_ms, append_origin::coordinator);
    ASSERT_FALSE(z);
    EXPECT_EQ(z.err().code, error_code::transaction_coordinator_fenced);
}

TEST_F(idempotence, idle_producers_expire_after_producer_id_expiration_ms) {
    ok({.producer_id = 1, .base_sequence = 0, .timestamp = test_now_ms});
    ok({.producer_id = 2, .base_sequence = 0, .timestamp = test_now_ms + 1000});
    ok({.producer_id = 3, .base_sequence = 0, .timestamp = test_now_ms, .transactional = true});
    const int64_t expiration = producer_state_config{}.producer_id_expiration_ms;
    EXPECT_EQ(l->remove_expired_producers(test_now_ms + expiration - 1), 0u);
    EXPECT_EQ(l->remove_expired_producers(test_now_ms + expiration), 1u);
    EXPECT_EQ(l->producer_state().find(1), nullptr);
    // Retention runs expire them too; an open transaction keeps its producer.
    ASSERT_TRUE(l->delete_old_segments(test_now_ms + expiration + 1000));
    EXPECT_EQ(l->producer_state().find(2), nullptr);
    EXPECT_NE(l->producer_state().find(3), nullptr);
    // An expired producer may continue at any sequence.
    ok({.producer_id = 1, .base_sequence = 77});
}

}  // namespace
}  // namespace samsa::storage
