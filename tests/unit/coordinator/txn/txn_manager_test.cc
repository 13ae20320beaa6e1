// The transaction coordinator's state machine (txn_manager.h) on a real
// __transaction_state partition: InitProducerId (a new id, epoch bumps,
// timeouts, epoch exhaustion), AddPartitionsToTxn (producer id and epoch
// checks, Empty -> Ongoing, repeats that write nothing, verify_only), EndTxn
// (Prepare* until the markers are written, then Complete*; retries and wrong
// results), a new producer fencing an ongoing transaction, timed-out
// transactions aborted under a bumped epoch, and the state reloaded from the
// log when the partition is elected again.
#include <gtest/gtest.h>

#include "txn_manager_fixture.h"

namespace samsa::coordinator::txn {
namespace {

#define EXPECT_EC(actual, expected) EXPECT_EQ(error_name(actual), error_name(expected))
#define ASSERT_EC(actual, expected) ASSERT_EQ(error_name(actual), error_name(expected))

class txn_manager_test : public testing::txn_manager_fixture {
  protected:
    // A transactional id initialised and Ongoing with `partitions`.
    init_pid_result ongoing(const std::string& id,
                            const std::vector<storage::topic_partition>& partitions = {{"t", 0}},
                            int32_t timeout_ms = 60000) {
        auto r = init(id, timeout_ms);
        EXPECT_EC(r.error, error_code::none);
        EXPECT_EC(add(id, r.producer_id, r.producer_epoch, partitions), error_code::none);
        return r;
    }
};

// ---- InitProducerId

TEST_F(txn_manager_test, init_on_a_new_id_asks_for_a_producer_id_then_writes_empty_epoch_0) {
    auto first = init_once("a");
    EXPECT_EC(first.error, error_code::none);
    EXPECT_TRUE(first.needs_producer_id);
    EXPECT_EQ(log_end(), 0);  // nothing written yet
    EXPECT_EC(manager->describe("a").first, error_code::transactional_id_not_found);

    auto r = init_once("a", 45000, -1, -1, 77);
    EXPECT_EC(r.error, error_code::none);
    EXPECT_FALSE(r.needs_producer_id);
    EXPECT_EQ(r.producer_id, 77);
    EXPECT_EQ(r.producer_epoch, 0);
    EXPECT_EQ(log_end(), 1);

    auto m = describe("a");
    EXPECT_EQ(m.transactional_id, "a");
    EXPECT_EQ(m.producer_id, 77);
    EXPECT_EQ(m.producer_epoch, 0);
    EXPECT_EQ(m.state, txn_state::empty);
    EXPECT_EQ(m.txn_timeout_ms, 45000);
    EXPECT_TRUE(m.partitions.empty());
    EXPECT_EQ(m.txn_last_update_ms, wall);
    EXPECT_FALSE(m.pending);
}

TEST_F(txn_manager_test, a_second_init_bumps_the_epoch) {
    auto a = init("a");
    ASSERT_EC(a.error, error_code::none);
    auto b = init("a");
    EXPECT_EC(b.error, error_code::none);
    EXPECT_FALSE(b.needs_producer_id);
    EXPECT_EQ(b.producer_id, a.producer_id);
    EXPECT_EQ(b.producer_epoch, 1);
    EXPECT_EQ(describe("a").producer_epoch, 1);
}

TEST_F(txn_manager_test, ids_are_independent) {
    auto a = init("a");
    auto b = init("b");
    ASSERT_EC(a.error, error_code::none);
    ASSERT_EC(b.error, error_code::none);
    EXPECT_NE(a.producer_id, b.producer_id);
    EXPECT_EQ(b.producer_epoch, 0);
    EXPECT_EQ(manager->list({}, {}).size(), 2u);
}

TEST_F(txn_manager_test, timeout_of_zero_or_above_the_max_is_invalid_transaction_timeout) {
    EXPECT_EC(init_once("a", 0).error, error_code::invalid_transaction_timeout);
    EXPECT_EC(init_once("a", -5).error, error_code::invalid_transaction_timeout);
    EXPECT_EC(init_once("a", config.max_timeout_ms + 1).error,
              error_code::invalid_transaction_timeout);
    EXPECT_EQ(log_end(), 0);
    auto r = init("a", config.max_timeout_ms);
    EXPECT_EC(r.error, error_code::none);
}

TEST_F(txn_manager_test, init_with_the_current_producer_id_and_epoch_bumps_it) {
    auto a = init("a");
    auto b = init("a", 60000, a.producer_id, a.producer_epoch);
    EXPECT_EC(b.error, error_code::none);
    EXPECT_EQ(b.producer_epoch, a.producer_epoch + 1);
    // KIP-360: an id and epoch that are neither current nor the last are fenced.
    EXPECT_EC(init_once("a", 60000, a.producer_id + 5, 0).error, error_code::producer_fenced);
}

TEST_F(txn_manager_test, an_exhausted_epoch_gets_a_new_producer_id) {
    manager->on_resigned(0);
    transaction_metadata m;
    m.transactional_id = "old";
    m.producer_id = 500;
    m.producer_epoch = max_producer_epoch;  // 32766
    m.state = txn_state::complete_commit;
    m.txn_last_update_ms = wall;
    write_record(m);
    elect();
    ASSERT_EQ(describe("old").producer_epoch, max_producer_epoch);

    auto first = init_once("old");
    EXPECT_TRUE(first.needs_producer_id);
    auto r = init_once("old", 60000, -1, -1, 600);
    EXPECT_EC(r.error, error_code::none);
    EXPECT_EQ(r.producer_id, 600);
    EXPECT_EQ(r.producer_epoch, 0);
    auto now_m = describe("old");
    EXPECT_EQ(now_m.producer_id, 600);
    EXPECT_EQ(now_m.producer_epoch, 0);
    EXPECT_EQ(now_m.last_producer_id, 500);
    EXPECT_EQ(now_m.state, txn_state::empty);
}

TEST_F(txn_manager_test, an_epoch_below_the_limit_is_bumped_in_place) {
    manager->on_resigned(0);
    transaction_metadata m;
    m.transactional_id = "near";
    m.producer_id = 500;
    m.producer_epoch = max_producer_epoch - 1;
    m.state = txn_state::empty;
    write_record(m);
    elect();
    auto r = init("near");
    EXPECT_EC(r.error, error_code::none);
    EXPECT_EQ(r.producer_id, 500);
    EXPECT_EQ(r.producer_epoch, max_producer_epoch);
}

// ---- AddPartitionsToTxn

TEST_F(txn_manager_test, add_partitions_checks_producer_id_then_epoch) {
    auto r = init("a");
    EXPECT_EC(add("a", r.producer_id + 1, r.producer_epoch, {{"t", 0}}),
              error_code::invalid_producer_id_mapping);
    EXPECT_EC(add("unknown", r.producer_id, r.producer_epoch, {{"t", 0}}),
              error_code::invalid_producer_id_mapping);
    EXPECT_EC(add("a", r.producer_id, int16_t(r.producer_epoch + 1), {{"t", 0}}),
              error_code::producer_fenced);
    EXPECT_EQ(state("a"), txn_state::empty);
}

TEST_F(txn_manager_test, add_partitions_moves_empty_to_ongoing_with_a_start_time) {
    auto r = init("a");
    advance(250);
    const int64_t started = wall;
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}, {"u", 2}}), error_code::none);
    auto m = describe("a");
    EXPECT_EQ(m.state, txn_state::ongoing);
    EXPECT_EQ(m.txn_start_ms, started);
    EXPECT_EQ(m.txn_last_update_ms, started);
    EXPECT_EQ(m.partitions, (std::set<storage::topic_partition>{{"t", 0}, {"u", 2}}));

    // More partitions later: the start time stays.
    advance(100);
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 1}}), error_code::none);
    m = describe("a");
    EXPECT_EQ(m.txn_start_ms, started);
    EXPECT_EQ(m.txn_last_update_ms, wall);
    EXPECT_EQ(m.partitions.size(), 3u);
}

TEST_F(txn_manager_test, re_adding_the_same_partitions_writes_nothing) {
    auto r = ongoing("a", {{"t", 0}, {"t", 1}});
    const int64_t end = log_end();
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 1}}), error_code::none);
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}, {"t", 1}}), error_code::none);
    EXPECT_EQ(log_end(), end);
}

TEST_F(txn_manager_test, verify_only_checks_without_writing) {
    auto r = init("a");
    const int64_t end = log_end();
    // Not ongoing yet.
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}}, true),
              error_code::invalid_txn_state);
    EXPECT_EQ(state("a"), txn_state::empty);
    EXPECT_EQ(log_end(), end);

    ASSERT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}}), error_code::none);
    const int64_t after_add = log_end();
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}}, true), error_code::none);
    // A partition the transaction does not hold: refused, and not added.
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}, {"t", 9}}, true),
              error_code::invalid_txn_state);
    EXPECT_EQ(describe("a").partitions, (std::set<storage::topic_partition>{{"t", 0}}));
    EXPECT_EQ(log_end(), after_add);
    // The id and epoch are checked first.
    EXPECT_EC(add("a", r.producer_id, int16_t(r.producer_epoch + 1), {{"t", 0}}, true),
              error_code::producer_fenced);
}

// A second replica in the ISR that never fetches: the state write stays in
// flight (pending) until append_timeout_ms, then fails as Kafka maps
// REQUEST_TIMED_OUT (COORDINATOR_NOT_AVAILABLE); the state is not applied.
TEST_F(txn_manager_test, requests_while_a_state_write_is_pending_are_concurrent) {
    auto r = init("a");
    hold_state_writes();

    std::optional<error_code> first;
    manager->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}}, false,
                            [&first](error_code ec) { first = ec; });
    run_posted();
    EXPECT_FALSE(first.has_value());
    EXPECT_TRUE(describe("a").pending);
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 1}}),
              error_code::concurrent_transactions);
    EXPECT_EC(init_once("a").error, error_code::concurrent_transactions);
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::concurrent_transactions);

    advance(config.append_timeout_ms + 1);
    ASSERT_TRUE(first.has_value());
    EXPECT_EC(*first, error_code::coordinator_not_available);
    auto m = describe("a");
    EXPECT_FALSE(m.pending);
    EXPECT_EQ(m.state, txn_state::empty);
}

// The coordinator loses its partition while a state write is in flight: the
// write's answer is NOT_COORDINATOR, so the client asks the new coordinator
// (Kafka's appendTransactionToLog), never UNKNOWN_SERVER_ERROR, which
// librdkafka takes as a reason to abort a commit that may have landed.
TEST_F(txn_manager_test, a_write_in_flight_when_the_partition_moves_is_not_coordinator) {
    auto r = init("a");
    hold_state_writes();

    std::optional<error_code> answer;
    manager->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}}, false,
                            [&answer](error_code ec) { answer = ec; });
    run_posted();
    ASSERT_FALSE(answer.has_value());
    manager->on_resigned(0);
    advance(config.append_timeout_ms + 1);
    ASSERT_TRUE(answer.has_value());
    EXPECT_EC(*answer, error_code::not_coordinator);
}

// ---- EndTxn

TEST_F(txn_manager_test, end_txn_on_empty_is_invalid_txn_state) {
    auto r = init("a");
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::invalid_txn_state);
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, false), error_code::invalid_txn_state);
    EXPECT_EQ(state("a"), txn_state::empty);
}

TEST_F(txn_manager_test, end_txn_checks_producer_id_and_epoch) {
    auto r = ongoing("a");
    EXPECT_EC(end("a", r.producer_id + 1, r.producer_epoch, true),
              error_code::invalid_producer_id_mapping);
    EXPECT_EC(end("a", r.producer_id, int16_t(r.producer_epoch + 1), true),
              error_code::producer_fenced);
    EXPECT_EQ(state("a"), txn_state::ongoing);
}

TEST_F(txn_manager_test, commit_is_prepare_commit_until_the_markers_then_complete_commit) {
    hold_markers_for("t", 1);
    auto r = ongoing("a", {{"t", 0}});
    std::optional<txn_state> answered_in;
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true, &answered_in), error_code::none);
    EXPECT_EQ(answered_in, txn_state::prepare_commit);
    EXPECT_EQ(state("a"), txn_state::prepare_commit);
    EXPECT_EQ(markers->in_flight(), 1u);
    // The markers keep being retried; nothing completes meanwhile.
    advance(50);
    EXPECT_EQ(state("a"), txn_state::prepare_commit);
    // A retry of the commit while preparing, and an abort, are refused.
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::concurrent_transactions);
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, false), error_code::invalid_txn_state);
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}}),
              error_code::concurrent_transactions);
    EXPECT_EC(init_once("a").error, error_code::concurrent_transactions);

    release_markers();
    ASSERT_TRUE(run_until([&] {
        auto m = manager->describe("a").second;
        return m.state == txn_state::complete_commit && !m.pending;
    }));
    auto m = describe("a");
    EXPECT_EQ(m.producer_epoch, r.producer_epoch);
    EXPECT_TRUE(m.partitions.empty());
    EXPECT_EQ(markers->in_flight(), 0u);
}

TEST_F(txn_manager_test, commit_with_markers_to_nowhere_completes_at_once) {
    auto r = ongoing("a");
    std::optional<txn_state> answered_in;
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true, &answered_in), error_code::none);
    // Answered once PrepareCommit is replicated, before the markers.
    EXPECT_EQ(answered_in, txn_state::prepare_commit);
    run_posted();
    EXPECT_EQ(state("a"), txn_state::complete_commit);
}

TEST_F(txn_manager_test, retry_of_a_completed_commit_is_none_and_an_abort_invalid_txn_state) {
    auto r = ongoing("a");
    ASSERT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::none);
    run_posted();
    ASSERT_EQ(state("a"), txn_state::complete_commit);
    const int64_t end_offset = log_end();
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::none);
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, false), error_code::invalid_txn_state);
    EXPECT_EQ(log_end(), end_offset);
    EXPECT_EQ(state("a"), txn_state::complete_commit);
}

TEST_F(txn_manager_test, abort_completes_and_a_commit_after_it_is_invalid_txn_state) {
    auto r = ongoing("a");
    ASSERT_EC(end("a", r.producer_id, r.producer_epoch, false), error_code::none);
    run_posted();
    ASSERT_EQ(state("a"), txn_state::complete_abort);
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, false), error_code::none);
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::invalid_txn_state);
}

TEST_F(txn_manager_test, a_completed_transaction_can_start_another) {
    auto r = ongoing("a", {{"t", 0}});
    ASSERT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::none);
    run_posted();
    advance(10);
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"u", 1}}), error_code::none);
    auto m = describe("a");
    EXPECT_EQ(m.state, txn_state::ongoing);
    EXPECT_EQ(m.partitions, (std::set<storage::topic_partition>{{"u", 1}}));
    EXPECT_EQ(m.txn_start_ms, wall);
}

// ---- fencing

TEST_F(txn_manager_test, init_while_ongoing_aborts_under_a_bumped_epoch) {
    auto r = ongoing("a");
    auto busy = init_once("a");
    EXPECT_EC(busy.error, error_code::concurrent_transactions);
    run_posted();
    auto m = describe("a");
    EXPECT_EQ(m.state, txn_state::complete_abort);
    EXPECT_EQ(m.producer_id, r.producer_id);
    EXPECT_EQ(m.producer_epoch, r.producer_epoch + 1);
    // The old producer is fenced.
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}}), error_code::producer_fenced);
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::producer_fenced);

    auto again = init("a");
    EXPECT_EC(again.error, error_code::none);
    EXPECT_EQ(again.producer_id, r.producer_id);
    EXPECT_EQ(again.producer_epoch, r.producer_epoch + 2);
    EXPECT_EQ(state("a"), txn_state::empty);
}

TEST_F(txn_manager_test, init_while_the_fencing_abort_waits_for_markers_is_concurrent) {
    hold_markers_for("t", 1);
    auto r = ongoing("a", {{"t", 0}});
    EXPECT_EC(init_once("a").error, error_code::concurrent_transactions);
    EXPECT_EQ(state("a"), txn_state::prepare_abort);
    EXPECT_EQ(describe("a").producer_epoch, r.producer_epoch + 1);
    EXPECT_EC(init_once("a").error, error_code::concurrent_transactions);
    release_markers();
    ASSERT_TRUE(run_until([&] {
        auto m = manager->describe("a").second;
        return m.state == txn_state::complete_abort && !m.pending;
    }));
    EXPECT_EQ(init("a").producer_epoch, r.producer_epoch + 2);
}

// The markers are written but the ISR does not take the Complete* write in
// time (COORDINATOR_NOT_AVAILABLE): the write is retried, as Kafka's
// TransactionMarkerChannelManager retries it, while this coordinator holds
// the partition. It used to wait for the next load of the partition, and
// until then the producer got CONCURRENT_TRANSACTIONS for everything.
TEST_F(txn_manager_test, a_complete_write_the_isr_did_not_take_is_retried) {
    hold_markers_for("t", 1);
    auto r = ongoing("a", {{"t", 0}});
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::none);
    hold_state_writes();
    release_markers();
    ASSERT_TRUE(run_until([&] { return manager->describe("a").second.pending; }));
    advance(config.append_timeout_ms + 1);
    EXPECT_EQ(state("a"), txn_state::prepare_commit);
    EXPECT_EC(init_once("a").error, error_code::concurrent_transactions);
    // Retried while the ISR still does not take it.
    ASSERT_TRUE(run_until([&] { return manager->describe("a").second.pending; }));
    advance(config.append_timeout_ms + 1);
    EXPECT_EQ(state("a"), txn_state::prepare_commit);

    release_state_writes();
    ASSERT_TRUE(run_until([&] {
        auto m = manager->describe("a").second;
        return m.state == txn_state::complete_commit && !m.pending;
    }));
    EXPECT_EQ(init("a").producer_epoch, r.producer_epoch + 1);
}

TEST_F(txn_manager_test, a_timed_out_transaction_is_aborted_with_the_epoch_bumped) {
    auto r = ongoing("a", {{"t", 0}}, 1000);
    advance(1000);
    manager->abort_timed_out_transactions();
    run_posted();
    EXPECT_EQ(state("a"), txn_state::ongoing);  // not older than its timeout yet

    advance(1);
    manager->abort_timed_out_transactions();
    run_posted();
    auto m = describe("a");
    EXPECT_EQ(m.state, txn_state::complete_abort);
    EXPECT_EQ(m.producer_epoch, r.producer_epoch + 1);
    EXPECT_EC(add("a", r.producer_id, r.producer_epoch, {{"t", 0}}), error_code::producer_fenced);
    EXPECT_EC(end("a", r.producer_id, r.producer_epoch, true), error_code::producer_fenced);
}

TEST_F(txn_manager_test, only_ongoing_transactions_time_out) {
    auto empty = init("empty", 1000);
    auto busy = ongoing("busy", {{"t", 0}}, 1000);
    auto fresh = ongoing("fresh", {{"t", 0}}, 100000);
    advance(5000);
    manager->abort_timed_out_transactions();
    run_posted();
    EXPECT_EQ(state("empty"), txn_state::empty);
    EXPECT_EQ(describe("empty").producer_epoch, empty.producer_epoch);
    EXPECT_EQ(state("busy"), txn_state::complete_abort);
    EXPECT_EQ(state("fresh"), txn_state::ongoing);
    EXPECT_EQ(describe("fresh").producer_epoch, fresh.producer_epoch);
    (void)busy;
}

// ---- loading

TEST_F(txn_manager_test, the_state_comes_back_from_the_log_on_reelection) {
    auto a = ongoing("a", {{"t", 0}, {"u", 3}}, 12345);
    auto b = init("b");
    ASSERT_EC(b.error, error_code::none);
    auto c = ongoing("c", {{"t", 1}});
    ASSERT_EC(end("c", c.producer_id, c.producer_epoch, true), error_code::none);
    run_posted();
    const auto before_a = describe("a");
    const auto before_b = describe("b");
    const auto before_c = describe("c");

    manager->on_resigned(0);
    EXPECT_EC(manager->status_of("a"), error_code::not_coordinator);
    EXPECT_EC(add("a", a.producer_id, a.producer_epoch, {{"t", 0}}), error_code::not_coordinator);

    manager->on_elected(0, partition.get());
    EXPECT_EC(manager->status_of("a"), error_code::coordinator_load_in_progress);
    EXPECT_EC(init_once("a").error, error_code::coordinator_load_in_progress);
    run_posted();
    ASSERT_EC(manager->status_of("a"), error_code::none);

    for (const auto* before : {&before_a, &before_b, &before_c}) {
        auto m = describe(before->transactional_id);
        EXPECT_EQ(m.producer_id, before->producer_id) << before->transactional_id;
        EXPECT_EQ(m.producer_epoch, before->producer_epoch) << before->transactional_id;
        EXPECT_EQ(m.state, before->state) << before->transactional_id;
        EXPECT_EQ(m.partitions, before->partitions) << before->transactional_id;
        EXPECT_EQ(m.txn_timeout_ms, before->txn_timeout_ms) << before->transactional_id;
        EXPECT_EQ(m.txn_start_ms, before->txn_start_ms) << before->transactional_id;
        EXPECT_EQ(m.txn_last_update_ms, before->txn_last_update_ms) << before->transactional_id;
    }
    EXPECT_EQ(state("c"), txn_state::complete_commit);
    // And it serves: the ongoing transaction goes on.
    EXPECT_EC(end("a", a.producer_id, a.producer_epoch, true), error_code::none);
}

TEST_F(txn_manager_test, a_fresh_manager_reads_what_the_last_one_wrote) {
    auto a = ongoing("a", {{"t", 0}});
    start_manager();
    auto m = describe("a");
    EXPECT_EQ(m.producer_id, a.producer_id);
    EXPECT_EQ(m.state, txn_state::ongoing);
    EXPECT_EQ(m.partitions, (std::set<storage::topic_partition>{{"t", 0}}));
}

TEST_F(txn_manager_test, a_prepared_transaction_is_completed_when_loaded) {
    manager->on_resigned(0);
    transaction_metadata m;
    m.transactional_id = "prepared";
    m.producer_id = 321;
    m.producer_epoch = 4;
    m.state = txn_state::prepare_commit;
    m.partitions = {{"t", 0}};
    m.txn_start_ms = wall - 10;
    m.txn_last_update_ms = wall;
    write_record(m);
    elect();
    ASSERT_TRUE(run_until([&] {
        auto d = manager->describe("prepared").second;
        return d.state == txn_state::complete_commit && !d.pending;
    }));
    EXPECT_EQ(describe("prepared").producer_epoch, 4);
}

TEST_F(txn_manager_test, a_tombstone_removes_the_id) {
    auto a = init("a");
    ASSERT_EC(a.error, error_code::none);
    manager->on_resigned(0);
    auto key = encode_transaction_log_key("a");
    record::batch_builder b;
    b.add(wall, bytes_view(key), std::nullopt);
    auto batch = b.build();
    ASSERT_TRUE(batch);
    ASSERT_EC(partition->append_internal(*batch, wall).error.code, error_code::none);
    elect();
    EXPECT_EC(manager->describe("a").first, error_code::transactional_id_not_found);
    EXPECT_TRUE(init_once("a").needs_producer_id);
}

TEST_F(txn_manager_test, list_filters_by_state_and_producer_id) {
    auto a = init("a");
    auto b = ongoing("b");
    auto ongoing_only = manager->list({txn_state::ongoing}, {});
    ASSERT_EQ(ongoing_only.size(), 1u);
    EXPECT_EQ(ongoing_only[0].transactional_id, "b");
    auto by_pid = manager->list({}, {a.producer_id});
    ASSERT_EQ(by_pid.size(), 1u);
    EXPECT_EQ(by_pid[0].transactional_id, "a");
    (void)b;
}

}  // namespace
}  // namespace samsa::coordinator::txn
