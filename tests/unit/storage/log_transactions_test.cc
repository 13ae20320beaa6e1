// The partition side of transactions (KIP-98): the last stable offset, the
// aborted-transaction index (.txnindex) and what survives a restart.
#include <gtest/gtest.h>

#include <filesystem>

#include "record/batch_header.h"
#include "storage/log.h"
#include "storage/producer_batches.h"
#include "storage/segment_name.h"
#include "storage/temp_dir.h"
#include "storage/transaction_index.h"

namespace samsa::storage {
namespace {

using testing::end_txn_marker;
using testing::producer_batch;
using testing::temp_dir;
using testing::test_now_ms;
namespace fs = std::filesystem;

struct log_transactions : ::testing::Test {
    temp_dir root;
    std::string dir = root.file("orders-0");
    log_config config = [] {
        log_config c;
        c.segment_bytes = 1 << 20;
        c.segment_index_bytes = 64 * 1024;
        return c;
    }();
    std::map<int64_t, int32_t> next_seq;

    std::shared_ptr<log> open_log(bool clean = false, int64_t high_watermark = 0) {
        log_open_options o;
        o.high_watermark = high_watermark;
        o.dir = dir;
        o.tp = {"orders", 0};
        o.config = config;
        o.now_ms = test_now_ms;
        o.had_clean_shutdown = clean;
        auto l = log::open(o);
        EXPECT_TRUE(l) << (l ? "" : l.err().message);
        return l ? *l : nullptr;
    }

    // A transactional batch of `records`; returns its first offset.
    int64_t write(log& l, int64_t pid, int records = 2) {
        auto b = producer_batch({.producer_id = pid,
                                 .base_sequence = next_seq[pid],
                                 .records = records,
                                 .transactional = true});
        next_seq[pid] += records;
        auto r = l.append_as_leader(b, 0, test_now_ms);
        EXPECT_TRUE(r) << (r ? "" : r.err().message);
        l.update_high_watermark(l.log_end_offset());
        return r ? r->first_offset : -1;
    }
    // The coordinator's marker; returns its offset.
    int64_t end(log& l, int64_t pid, bool commit) {
        auto b = end_txn_marker(pid, 0, commit, 0);
        auto r = l.append_as_leader(b, 0, test_now_ms, record::append_origin::coordinator);
        EXPECT_TRUE(r) << (r ? "" : r.err().message);
        return r ? r->first_offset : -1;
    }
};

TEST_F(log_transactions, the_last_stable_offset_waits_for_the_earliest_open_transaction) {
    auto l = open_log();
    EXPECT_EQ(l->last_stable_offset(), 0);
    const int64_t a = write(*l, 1);  // 0-1
    const int64_t b = write(*l, 2);  // 2-3
    EXPECT_EQ(l->high_watermark(), 4);
    EXPECT_EQ(l->last_stable_offset(), a);
    end(*l, 1, true);  // 4
    // The marker is not replicated yet: still unstable.
    EXPECT_EQ(l->last_stable_offset(), a);
    l->update_high_watermark(l->log_end_offset());
    EXPECT_EQ(l->last_stable_offset(), b);
    end(*l, 2, false);  // 5
    l->update_high_watermark(l->log_end_offset());
    EXPECT_EQ(l->last_stable_offset(), 6);
    EXPECT_EQ(l->last_stable_offset(), l->high_watermark());
}

TEST_F(log_transactions, an_abort_is_indexed_and_read_back_for_the_fetched_range) {
    auto l = open_log();
    write(*l, 1);                                // 0-1 committed below
    const int64_t aborted_first = write(*l, 2);  // 2-3
    end(*l, 1, true);                            // 4
    const int64_t marker = end(*l, 2, false);    // 5
    l->update_high_watermark(l->log_end_offset());
    auto aborted = l->aborted_transactions(0, l->high_watermark());
    ASSERT_EQ(aborted.size(), 1u);
    EXPECT_EQ(aborted[0].producer_id, 2);
    EXPECT_EQ(aborted[0].first_offset, aborted_first);
    EXPECT_EQ(aborted[0].last_offset, marker);
    // Nothing to name for a fetch wholly after the abort.
    EXPECT_TRUE(l->aborted_transactions(marker + 1, l->high_watermark()).empty());
    // The segment's .txnindex holds it in Kafka's 34-byte format.
    const auto path = dir + "/" + segment_file_name(0, txn_index_suffix);
    ASSERT_TRUE(fs::exists(path));
    EXPECT_EQ(fs::file_size(path), transaction_index::entry_size);
}

TEST_F(log_transactions, open_transactions_and_aborts_survive_a_restart) {
    {
        auto l = open_log();
        write(*l, 1);
        end(*l, 1, false);
        write(*l, 2);  // left open: 3-4
        l->update_high_watermark(l->log_end_offset());
        ASSERT_TRUE(l->close());
    }
    auto l = open_log(true);
    l->update_high_watermark(l->log_end_offset());
    EXPECT_EQ(l->last_stable_offset(), 3);
    EXPECT_EQ(l->aborted_transactions(0, 5).size(), 1u);
    end(*l, 2, true);
    l->update_high_watermark(l->log_end_offset());
    EXPECT_EQ(l->last_stable_offset(), l->high_watermark());
}

TEST_F(log_transactions, a_lost_txnindex_is_rebuilt_by_recovery_and_truncation_drops_entries) {
    {
        auto l = open_log();
        write(*l, 1);
        end(*l, 1, false);  // 2
        write(*l, 1);       // 3-4
        end(*l, 1, false);  // 5
        l->update_high_watermark(l->log_end_offset());
        // No clean close: the next open recovers.
    }
    fs::remove(dir + "/" + segment_file_name(0, txn_index_suffix));
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() == ".snapshot") {
            fs::remove(e.path());
        }
    }
    auto l = open_log(false);
    l->update_high_watermark(l->log_end_offset());
    EXPECT_EQ(l->aborted_transactions(0, l->log_end_offset()).size(), 2u);
    ASSERT_TRUE(l->truncate_to(3, test_now_ms));
    auto left = l->aborted_transactions(0, l->log_end_offset());
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].last_offset, 2);
}

TEST_F(log_transactions, a_replay_after_a_crash_leaves_nothing_unstable_below_the_high_watermark) {
    int64_t leo = 0;
    {
        auto l = open_log();
        write(*l, 1);
        end(*l, 1, true);
        write(*l, 2);
        end(*l, 2, false);
        l->update_high_watermark(l->log_end_offset());
        leo = l->log_end_offset();
        // No clean close, no snapshot: the next open replays every marker.
    }
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() == ".snapshot") {
            fs::remove(e.path());
        }
    }
    auto l = open_log(false, leo);
    EXPECT_EQ(l->high_watermark(), leo);
    EXPECT_EQ(l->last_stable_offset(), leo);
}

TEST(transaction_index_file, a_torn_tail_is_dropped_and_duplicates_ignored) {
    temp_dir root;
    const std::string path = root.file("00000000000000000000.txnindex");
    {
        auto idx = transaction_index::open(path);
        ASSERT_TRUE(idx);
        ASSERT_TRUE(idx->append({7, 0, 3, 4}));
        ASSERT_TRUE(idx->append({7, 0, 3, 4}));  // a replay re-adding it
        ASSERT_TRUE(idx->append({7, 0, 3, 0}));  // ... with another last stable offset
        ASSERT_TRUE(idx->append({8, 5, 9, 10}));
        EXPECT_EQ(idx->entries().size(), 2u);
        EXPECT_FALSE(idx->append({9, 1, 2, 3}));  // out of order
    }
    fs::resize_file(path, transaction_index::entry_size * 2 - 5);
    auto idx = transaction_index::open(path);
    ASSERT_TRUE(idx);
    ASSERT_EQ(idx->entries().size(), 1u);
    EXPECT_EQ(idx->entries()[0], (aborted_txn{7, 0, 3, 4}));
    EXPECT_EQ(fs::file_size(path), transaction_index::entry_size);
}

}  // namespace
}  // namespace samsa::storage
