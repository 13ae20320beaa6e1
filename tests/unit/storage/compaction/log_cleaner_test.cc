// The cleaner threads' bookkeeping: which log is cleaned, the
// cleaner-offset-checkpoint, uncleanable logs, and the threads themselves.
#include "storage/compaction/log_cleaner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "record/batch_builder.h"
#include "storage/checkpoint_file.h"
#include "storage/producer_batches.h"
#include "storage/temp_dir.h"

namespace samsa::storage::testing {
namespace {

using compaction::log_cleaner;

struct log_cleaner_fixture : ::testing::Test {
    temp_dir root;
    std::atomic<int64_t> now{test_now_ms};
    log_manager_config config = [this] {
        log_manager_config c;
        c.log_dirs = {root.file("data")};
        c.defaults.segment_index_bytes = 64 * 1024;
        c.defaults.file_delete_delay_ms = 0;
        c.topic_config = [](const std::string& topic) {
            log_config l;
            l.segment_index_bytes = 64 * 1024;
            l.cleanup_compact = topic.rfind("compacted", 0) == 0;
            l.cleanup_delete = !l.cleanup_compact;
            return l;
        };
        return c;
    }();
    std::unique_ptr<log_manager> logs = [this] {
        auto m = log_manager::open(config, 0);
        EXPECT_TRUE(m);
        return std::move(*m);
    }();

    std::shared_ptr<log> create(const std::string& topic) {
        auto l = logs->get_or_create({topic, 0}, std::nullopt, now);
        EXPECT_TRUE(l);
        return *l;
    }
    static void write(log& l, int n, int keys) {
        for (int i = 0; i < n; ++i) {
            record::batch_builder b;
            std::string k = "k" + std::to_string(i % keys), v = "v" + std::to_string(i);
            b.add(test_now_ms, as_bytes_view(k), as_bytes_view(v));
            auto batch = *b.build();
            ASSERT_TRUE(l.append_as_leader(batch, 0, test_now_ms));
        }
        l.update_high_watermark(l.log_end_offset());
        ASSERT_TRUE(l.roll(test_now_ms));
    }
    log_cleaner make_cleaner(compaction::log_cleaner_config c = {}) {
        c.dedupe_buffer_size = 1 << 20;
        return log_cleaner(c, *logs, compaction::inline_runner(), [this] { return now.load(); });
    }
};

TEST_F(log_cleaner_fixture, cleans_compacted_logs_only_and_checkpoints_how_far) {
    auto compacted = create("compacted");
    auto plain = create("plain");
    write(*compacted, 30, 3);
    write(*plain, 30, 3);
    auto cleaner = make_cleaner();
    auto r = cleaner.clean_once();
    ASSERT_TRUE(r);
    EXPECT_TRUE(*r);
    EXPECT_EQ(cleaner.cleaned_offsets().at({"compacted", 0}), 30);
    EXPECT_FALSE(cleaner.cleaned_offsets().count({"plain", 0}));
    auto cp = read_offset_checkpoint(root.file("data/cleaner-offset-checkpoint"));
    ASSERT_TRUE(cp);
    EXPECT_EQ(cp->at({"compacted", 0}), 30);
    // Nothing dirty left: nothing to do.
    r = cleaner.clean_once();
    ASSERT_TRUE(r);
    EXPECT_FALSE(*r);
    // A new cleaner starts from the checkpoint.
    write(*compacted, 10, 3);
    auto again = make_cleaner();
    EXPECT_EQ(again.cleaned_offsets().at({"compacted", 0}), 30);
    ASSERT_TRUE(again.clean_once());
    EXPECT_EQ(again.cleaned_offsets().at({"compacted", 0}), 40);
}

TEST_F(log_cleaner_fixture, waits_for_the_dirty_ratio) {
    auto l = create("compacted");
    write(*l, 100, 100);  // all distinct keys
    auto cleaner = make_cleaner();
    ASSERT_TRUE(cleaner.clean_once());
    write(*l, 5, 100);  // 5% dirty, below the default 0.5
    auto cfg = l->config();
    auto r = cleaner.clean_once();
    ASSERT_TRUE(r);
    EXPECT_FALSE(*r);
    cfg.min_cleanable_dirty_ratio = 0.01;
    l->update_config(cfg);
    r = cleaner.clean_once();
    ASSERT_TRUE(r);
    EXPECT_TRUE(*r);
}

TEST_F(log_cleaner_fixture, a_corrupt_log_is_left_uncleanable_and_the_others_are_cleaned) {
    auto bad = create("compacted-bad");
    auto good = create("compacted-good");
    write(*bad, 20, 2);
    write(*good, 20, 2);
    // Damage a batch header in the middle of bad's first segment.
    auto first = bad->segments().front();
    {
        auto f = file_handle::open(first->log_path(), O_RDWR);
        ASSERT_TRUE(f);
        uint8_t garbage[12] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1};
        ASSERT_EQ(::pwrite(f->fd(), garbage, sizeof garbage, first->size_bytes() / 2),
                  ssize_t(sizeof garbage));
    }
    auto cleaner = make_cleaner();
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(cleaner.clean_once());
    }
    EXPECT_TRUE(cleaner.uncleanable().count({"compacted-bad", 0}));
    EXPECT_EQ(cleaner.cleaned_offsets().count({"compacted-good", 0}), 1u);
}

TEST_F(log_cleaner_fixture, the_threads_clean_in_the_background_and_stop) {
    auto l = create("compacted");
    write(*l, 50, 5);
    compaction::log_cleaner_config c;
    c.threads = 2;
    c.backoff_ms = 10;
    auto cleaner = make_cleaner(c);
    cleaner.start();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!cleaner.cleaned_offsets().count({"compacted", 0}) &&
           std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    cleaner.stop();
    EXPECT_EQ(cleaner.cleaned_offsets().at({"compacted", 0}), 50);
    EXPECT_LE(l->size_bytes(), 5 * 200);
}

TEST_F(log_cleaner_fixture, no_threads_clean_nothing_until_reconfigured_with_some) {
    auto l = create("compacted");
    write(*l, 50, 5);
    compaction::log_cleaner_config c;
    c.threads = 0;
    c.backoff_ms = 10;
    auto cleaner = make_cleaner(c);
    cleaner.start();
    EXPECT_TRUE(cleaner.cleaned_offsets().empty());
    // log.cleaner.threads changed at run time (Kafka's LogCleaner.reconfigure).
    auto more = cleaner.config();
    more.threads = 1;
    cleaner.reconfigure(more);
    EXPECT_EQ(cleaner.config().threads, 1);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!cleaner.cleaned_offsets().count({"compacted", 0}) &&
           std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(cleaner.cleaned_offsets().count({"compacted", 0}), 1u);
    // A stopped cleaner keeps a new config for its next start.
    cleaner.stop();
    more.backoff_ms = 20;
    cleaner.reconfigure(more);
    EXPECT_EQ(cleaner.config().backoff_ms, 20);
}

}  // namespace
}  // namespace samsa::storage::testing
