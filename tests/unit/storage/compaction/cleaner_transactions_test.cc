// The cleaner and transactions: aborted data goes, markers stay while their
// transaction has data (then for delete.retention.ms), each producer keeps its
// last batch, and the last stable offset is what it was.
#include <gtest/gtest.h>

#include "storage/compaction/compaction_fixture.h"

namespace samsa::storage::testing {
namespace {

struct cleaner_transactions : compaction_fixture {
    std::map<int64_t, int32_t> next_seq;

    // A transactional (or idempotent) batch of keyed records.
    int64_t txn_write(int64_t pid, const std::vector<kv>& records, bool transactional = true) {
        record::batch_options o;
        o.producer_id = pid;
        o.producer_epoch = 0;
        o.base_sequence = next_seq[pid];
        o.transactional = transactional;
        record::batch_builder b(o);
        for (const auto& r : records) {
            b.add(now_ms, as_bytes_view(r.key), as_bytes_view(*r.value));
        }
        next_seq[pid] += int32_t(records.size());
        return append(std::move(*b.build()));
    }
    int64_t marker(int64_t pid, bool commit) {
        return append(end_txn_marker(pid, 0, commit, 0, now_ms),
                      record::append_origin::coordinator);
    }
};

TEST_F(cleaner_transactions, aborted_data_is_removed_and_committed_data_kept) {
    txn_write(1, {{"a", "aborted"}, {"b", "aborted"}});
    txn_write(2, {{"c", "committed"}});
    int64_t abort_at = marker(1, false);
    marker(2, true);
    put("z", "plain");
    roll();
    EXPECT_EQ(l->aborted_transactions(0, l->log_end_offset()).size(), 1u);
    auto out = clean();
    EXPECT_EQ(out.stats.aborted_records_removed, 2);
    auto rs = read_all();
    auto m = latest(rs);
    EXPECT_FALSE(m.count("a"));
    EXPECT_FALSE(m.count("b"));
    EXPECT_EQ(m["c"], "committed");
    EXPECT_EQ(m["z"], "plain");
    // The COMMIT marker stays (its transaction has data); the lone ABORT
    // marker stays until its delete horizon, with its .txnindex entry.
    int markers = 0;
    for (const auto& r : rs) {
        markers += r.control ? 1 : 0;
    }
    EXPECT_EQ(markers, 2);
    auto aborted = l->aborted_transactions(0, l->log_end_offset());
    ASSERT_EQ(aborted.size(), 1u);
    EXPECT_EQ(aborted[0].last_offset, abort_at);
    EXPECT_EQ(l->last_stable_offset(), l->high_watermark());

    now_ms += config.delete_retention_ms + 1;
    put("y", "more");
    roll();
    auto later = clean();
    EXPECT_EQ(later.stats.markers_removed, 1);
    EXPECT_TRUE(l->aborted_transactions(0, l->log_end_offset()).empty());
    markers = 0;
    for (const auto& r : read_all()) {
        markers += r.control ? 1 : 0;
    }
    EXPECT_EQ(markers, 1);

    // After a restart the state reloads from the cleaned log: no open
    // transaction, the producers' sequences intact.
    reopen();
    EXPECT_EQ(l->last_stable_offset(), l->high_watermark());
    EXPECT_TRUE(l->producer_state().ongoing_transactions().empty());
}

TEST_F(cleaner_transactions, a_producers_last_batch_is_kept_empty) {
    txn_write(7, {{"k", "1"}}, false);
    put("k", "2");
    roll();
    auto out = clean();
    EXPECT_FALSE(out.segments.empty());
    // The record is gone, but the batch that carried pid 7's last sequence is
    // still there, empty, so its sequence survives a rebuild of the state.
    auto m = latest(read_all());
    EXPECT_EQ(m["k"], "2");
    reopen();
    const auto& producers = l->producer_state().producers();
    auto it = producers.find(7);
    ASSERT_NE(it, producers.end());
    EXPECT_EQ(it->second.last_data_offset(), 0);
    // The next write of pid 7 continues its sequence.
    next_seq[7] = 1;
    EXPECT_GE(txn_write(7, {{"k", "3"}}, false), 0);
}

TEST_F(cleaner_transactions, an_open_transaction_is_not_cleaned) {
    txn_write(3, {{"k", "open"}});
    put("k", "later");
    roll();
    EXPECT_LT(l->last_stable_offset(), l->high_watermark());
    auto plan = l->plan_cleaning(0, now_ms);
    EXPECT_TRUE(plan.segments.empty());  // the segment reaches past the LSO
    marker(3, true);
    roll();
    plan = l->plan_cleaning(0, now_ms);
    EXPECT_FALSE(plan.segments.empty());
}

}  // namespace
}  // namespace samsa::storage::testing
