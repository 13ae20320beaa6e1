// Producer state across a log's life (storage/log_producer_state.cc): snapshots
// at rolls and clean closes, reload after clean and unclean shutdowns, corrupt
// snapshots, truncation, retention, truncate fully.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "storage/log.h"
#include "storage/producer_batches.h"
#include "storage/segment_name.h"
#include "storage/temp_dir.h"

namespace samsa::storage {
namespace {

using testing::producer_batch;
using testing::temp_dir;
using testing::test_now_ms;
namespace fs = std::filesystem;

struct producer_state_lifecycle : ::testing::Test {
    temp_dir root;
    std::shared_ptr<deletion_queue> deletions = std::make_shared<deletion_queue>();
    log_config config = [] {
        log_config c;
        c.segment_bytes = 2000;
        c.segment_index_bytes = 64 * 1024;
        return c;
    }();
    std::string dir = root.file("orders-0");
    std::map<int64_t, int32_t> next_seq;  // producer id -> next sequence

    std::shared_ptr<log> open_log(bool clean = false, int64_t recovery_point = 0) {
        log_open_options o;
        o.dir = dir;
        o.tp = {"orders", 0};
        o.config = config;
        o.now_ms = test_now_ms;
        o.had_clean_shutdown = clean;
        o.recovery_point = recovery_point;
        o.deletions = deletions;
        auto l = log::open(o);
        EXPECT_TRUE(l) << (l ? "" : l.err().message);
        return l ? *l : nullptr;
    }

    // Appends `n` batches round-robin over producers 1..`producers`.
    void produce(log& l, int n, int producers = 3, int records = 4) {
        for (int i = 0; i < n; ++i) {
            int64_t id = 1 + i % producers;
            auto b = producer_batch({.producer_id = id,
                                     .base_sequence = next_seq[id],
                                     .records = records,
                                     .timestamp = test_now_ms + i});
            auto r = l.append_as_leader(b, 0, test_now_ms);
            ASSERT_TRUE(r) << r.err().message;
            ASSERT_FALSE(r->duplicate);
            next_seq[id] += records;
        }
    }

    std::vector<int64_t> snapshot_files() const {
        std::vector<int64_t> out;
        for (const auto& e : fs::directory_iterator(dir)) {
            if (auto o = parse_producer_snapshot_file_name(e.path().filename().string())) {
                out.push_back(*o);
            }
        }
        std::sort(out.begin(), out.end());
        return out;
    }

    std::vector<int64_t> segment_bases(const log& l) const {
        std::vector<int64_t> out;
        for (const auto& s : l.segments()) {
            out.push_back(s->base_offset());
        }
        return out;
    }

    // The state replaying the whole log gives: a log opened with no snapshots.
    producer_map replayed_state(const log& l) {
        temp_dir copy;
        std::string to = copy.file("orders-0");
        fs::create_directories(to);
        for (const auto& e : fs::directory_iterator(dir)) {
            auto name = e.path().filename().string();
            if (!name.ends_with(".snapshot")) {
                fs::copy_file(e.path(), to + "/" + name);
            }
        }
        log_open_options o;
        o.dir = to;
        o.tp = {"orders", 0};
        o.config = config;
        o.now_ms = test_now_ms;
        auto fresh = log::open(o);
        EXPECT_TRUE(fresh);
        return fresh ? (*fresh)->producer_state().producers() : producer_map{};
    }
};

TEST_F(producer_state_lifecycle, every_roll_snapshots_at_the_new_base) {
    auto l = open_log();
    produce(*l, 80);
    ASSERT_GT(l->segment_count(), 3u);
    auto bases = segment_bases(*l);
    auto snaps = snapshot_files();
    for (size_t i = 1; i < bases.size(); ++i) {
        EXPECT_TRUE(std::binary_search(snaps.begin(), snaps.end(), bases[i])) << bases[i];
    }
    // Each holds the state below its offset: the replay of the log up to it.
    auto loaded = read_producer_snapshot(dir + "/" + producer_snapshot_file_name(bases[1]));
    ASSERT_TRUE(loaded);
    int64_t max_last = -1;
    for (const auto& [id, e] : *loaded) {
        max_last = std::max(max_last, e.last_data_offset());
    }
    EXPECT_EQ(max_last, bases[1] - 1);
}

TEST_F(producer_state_lifecycle, clean_close_snapshots_at_the_leo_and_reopen_replays_nothing) {
    producer_map before;
    int64_t leo;
    {
        auto l = open_log();
        produce(*l, 25);
        before = l->producer_state().producers();
        leo = l->log_end_offset();
        ASSERT_TRUE(l->close());
    }
    EXPECT_EQ(snapshot_files().back(), leo);
    auto l = open_log(true, leo);
    EXPECT_EQ(l->producer_state().producers(), before);
    EXPECT_EQ(l->producer_state().map_end_offset(), leo);
    // All five batches of each producer came back: retries are recognised.
    for (const auto& [id, e] : before) {
        EXPECT_EQ(e.batches.size(), max_retained_batches);
    }
    produce(*l, 3);
}

TEST_F(producer_state_lifecycle, unclean_reopen_rebuilds_the_same_state) {
    producer_map before;
    {
        auto l = open_log();
        produce(*l, 37);
        before = l->producer_state().producers();
        // No close: as after SIGKILL.
    }
    auto l = open_log();
    EXPECT_EQ(l->producer_state().producers(), before);
    EXPECT_EQ(l->producer_state().producers(), replayed_state(*l));
    // Loading snapshotted at the LEO, so a second crash replays nothing new.
    EXPECT_EQ(l->producer_state().latest_snapshot_offset(), l->log_end_offset());
    auto again = open_log();
    EXPECT_EQ(again->producer_state().producers(), before);
}

TEST_F(producer_state_lifecycle, corrupt_snapshots_are_deleted_and_the_log_replayed) {
    producer_map before;
    int64_t leo;
    {
        auto l = open_log();
        produce(*l, 30);
        before = l->producer_state().producers();
        leo = l->log_end_offset();
        ASSERT_TRUE(l->close());
    }
    // Damage the latest two: one torn, one flipped.
    auto snaps = snapshot_files();
    ASSERT_GE(snaps.size(), 2u);
    auto last = dir + "/" + producer_snapshot_file_name(snaps.back());
    fs::resize_file(last, fs::file_size(last) - 3);
    auto prev = dir + "/" + producer_snapshot_file_name(snaps[snaps.size() - 2]);
    {
        std::fstream f(prev, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(20);
        f.put('\x55');
    }
    auto l = open_log(true, leo);
    EXPECT_EQ(l->producer_state().producers(), before);
}

TEST_F(producer_state_lifecycle, truncation_rebuilds_the_state_below_the_new_end) {
    auto l = open_log();
    produce(*l, 60);
    ASSERT_GE(l->segment_count(), 4u);
    const int64_t target = l->segments()[2]->base_offset() + 4;  // inside a segment
    ASSERT_TRUE(l->truncate_to(target, test_now_ms));
    EXPECT_EQ(l->producer_state().map_end_offset(), l->log_end_offset());
    for (auto o : snapshot_files()) {
        EXPECT_LE(o, l->log_end_offset());
    }
    EXPECT_EQ(l->producer_state().producers(), replayed_state(*l));
    for (const auto& [id, e] : l->producer_state().producers()) {
        EXPECT_LT(e.last_data_offset(), l->log_end_offset());
    }
    // The producers continue after their truncated sequences.
    for (const auto& [id, e] : l->producer_state().producers()) {
        auto b = producer_batch({.producer_id = id, .base_sequence = e.last_seq() + 1});
        ASSERT_TRUE(l->append_as_leader(b, 1, test_now_ms));
    }
}

TEST_F(producer_state_lifecycle, retention_keeps_producers_and_their_state_survives_restart) {
    producer_map before;
    int64_t leo;
    {
        auto l = open_log();
        produce(*l, 12, 2);
        // A producer whose every batch is about to be deleted.
        auto lonely = producer_batch({.producer_id = 99, .base_sequence = 0});
        ASSERT_TRUE(l->append_as_leader(lonely, 0, test_now_ms));
        produce(*l, 90, 2);
        ASSERT_GE(l->segment_count(), 5u);
        l->update_high_watermark(l->log_end_offset());
        auto start = l->delete_records_before(l->segments()[3]->base_offset(), test_now_ms);
        ASSERT_TRUE(start);
        ASSERT_GT(*start, l->producer_state().find(99)->last_data_offset());
        // Still known (KIP-360): its next batch is checked, not accepted blindly.
        EXPECT_NE(l->producer_state().find(99), nullptr);
        for (auto o : snapshot_files()) {
            EXPECT_GE(o, l->segments().front()->base_offset());
        }
        before = l->producer_state().producers();
        leo = l->log_end_offset();
        // Killed.
    }
    auto l = open_log(false, 0);
    EXPECT_EQ(l->producer_state().producers(), before);
    auto gap = producer_batch({.producer_id = 99, .base_sequence = 5});
    auto r = l->append_as_leader(gap, 0, test_now_ms);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, error_code::out_of_order_sequence_number);
    EXPECT_EQ(l->log_end_offset(), leo);
}

TEST_F(producer_state_lifecycle, truncate_fully_forgets_everything) {
    auto l = open_log();
    produce(*l, 20);
    ASSERT_TRUE(l->truncate_fully_and_start_at(5000, test_now_ms));
    EXPECT_TRUE(l->producer_state().producers().empty());
    EXPECT_EQ(l->producer_state().map_end_offset(), 5000);
    EXPECT_TRUE(snapshot_files().empty());
    auto b = producer_batch({.producer_id = 1, .base_sequence = 1234});
    ASSERT_TRUE(l->append_as_leader(b, 0, test_now_ms));
}

TEST_F(producer_state_lifecycle, stray_snapshots_are_removed_on_load) {
    int64_t leo;
    {
        auto l = open_log();
        produce(*l, 20);
        leo = l->log_end_offset();
        ASSERT_TRUE(l->close());
    }
    // A stray: no segment starts at offset 1, and it is not the newest.
    auto stray = dir + "/" + producer_snapshot_file_name(1);
    fs::copy_file(dir + "/" + producer_snapshot_file_name(leo), stray);
    auto l = open_log(true, leo);
    EXPECT_FALSE(fs::exists(stray));
    EXPECT_EQ(snapshot_files().back(), leo);
}

}  // namespace
}  // namespace samsa::storage

namespace samsa::storage {
namespace {

// A replica that became leader in an epoch and wrote nothing before it was
// demoted must not keep announcing that epoch as a follower: truncating to (or
// past) the log end still drops epochs that start at the end, as Kafka does.
TEST_F(producer_state_lifecycle, truncation_at_the_end_drops_an_epoch_never_written) {
    auto l = open_log();
    produce(*l, 5);
    const int64_t leo = l->log_end_offset();
    ASSERT_TRUE(l->leader_epochs().assign(7, leo));
    ASSERT_EQ(l->leader_epochs().latest_epoch(), 7);
    ASSERT_TRUE(l->truncate_to(leo, test_now_ms));
    EXPECT_EQ(l->log_end_offset(), leo);
    EXPECT_NE(l->leader_epochs().latest_epoch(), 7);
}

}  // namespace
}  // namespace samsa::storage
