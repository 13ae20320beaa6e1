#include "storage/log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/crc32c.h"
#include "storage/file_util.h"
#include "storage/log_fixture.h"
#include "storage/segment_name.h"

namespace samsa::storage {
namespace {

using testing::batch_spec;
using testing::make_batch;
namespace fs = std::filesystem;

TEST_F(log_fixture, append_as_leader_assigns_offsets_and_stamps_epoch) {
    auto l = open_log();
    EXPECT_EQ(l->log_end_offset(), 0);
    auto r1 = append(*l, 5, 1000, 3, 777);
    EXPECT_EQ(r1.first_offset, 0);
    EXPECT_EQ(r1.last_offset, 4);
    EXPECT_EQ(r1.max_timestamp, 1004);
    EXPECT_EQ(r1.offset_of_max_timestamp, 4);
    EXPECT_EQ(r1.log_append_time_ms, 777);
    EXPECT_EQ(r1.records, 5);
    auto r2 = append(*l, 2, 2000, 3);
    EXPECT_EQ(r2.first_offset, 5);
    EXPECT_EQ(r2.last_offset, 6);
    EXPECT_EQ(l->log_end_offset(), 7);
    auto headers = read_headers(*l, 0);
    ASSERT_EQ(headers.size(), 2u);
    EXPECT_EQ(headers[0].base_offset, 0);
    EXPECT_EQ(headers[1].base_offset, 5);
    EXPECT_EQ(headers[1].partition_leader_epoch,
              3);  // the CRC stayed valid (checked in read_headers)
    EXPECT_EQ(l->leader_epochs().entries(), (std::vector<epoch_entry>{{3, 0}}));
    append(*l, 1, 3000, 5);
    EXPECT_EQ(l->leader_epochs().entries(), (std::vector<epoch_entry>{{3, 0}, {5, 7}}));
}

TEST_F(log_fixture, append_rejects_bad_framing_and_oversized_batches) {
    auto l = open_log();
    bytes empty;
    EXPECT_EQ(l->append_as_leader(empty, 0, 0).code(), error_code::corrupt_message);
    auto torn = producer_batch(3);
    torn.resize(torn.size() - 1);
    EXPECT_EQ(l->append_as_leader(torn, 0, 0).code(), error_code::corrupt_message);
    config.max_message_bytes = 500;
    l->update_config(config);
    auto big = producer_batch(10, 1000, 100);
    EXPECT_EQ(l->append_as_leader(big, 0, 0).code(), error_code::message_too_large);
    config.max_message_bytes = 1 << 20;
    config.segment_bytes = 700;
    l->update_config(config);
    EXPECT_EQ(l->append_as_leader(big, 0, 0).code(), error_code::record_list_too_large);
    EXPECT_EQ(l->log_end_offset(), 0);
    // Several batches larger together than a segment: one segment takes them.
    bytes two = producer_batch(3);
    testing::append_to(two, producer_batch(3));
    ASSERT_GT(two.size(), 700u);
    ASSERT_TRUE(l->append_as_leader(two, 0, 0));
    EXPECT_EQ(l->log_end_offset(), 6);
}

TEST_F(log_fixture, read_bounds_and_out_of_range) {
    auto l = open_log();
    for (int i = 0; i < 10; ++i) {
        append(*l, 3);
    }
    EXPECT_EQ(l->read(kafka_offset{31}, 1000, std::nullopt, false).code(),
              error_code::offset_out_of_range);
    EXPECT_EQ(l->read(kafka_offset{-1}, 1000, std::nullopt, false).code(),
              error_code::offset_out_of_range);
    auto at_end = l->read(kafka_offset{30}, 1000, std::nullopt, false);
    ASSERT_TRUE(at_end);
    EXPECT_TRUE(at_end->records.empty());
    EXPECT_EQ(at_end->log_end_offset, 30);
    // Bounded by a high watermark of 12: batches 0, 3, 6, 9 only.
    auto h = read_headers(*l, 4, kafka_offset{12});
    ASSERT_EQ(h.size(), 3u);
    EXPECT_EQ(h.front().base_offset, 3);
    EXPECT_EQ(h.back().base_offset, 9);
    // Inside the batch at the bound: nothing.
    EXPECT_TRUE(l->read(kafka_offset{13}, 1000, kafka_offset{13}, false)->records.empty());
    // max_bytes cuts; min_one_message returns the first batch whole.
    auto cut = l->read(kafka_offset{0}, 10, std::nullopt, false);
    EXPECT_EQ(cut->records.length, 10);
    auto one = l->read(kafka_offset{0}, 10, std::nullopt, true);
    EXPECT_EQ(one->records.length, int64_t(producer_batch(3).size()));
}

TEST_F(log_fixture, rolls_on_segment_bytes_and_reads_across_segments) {
    config.segment_bytes = 2000;
    auto l = open_log();
    for (int i = 0; i < 30; ++i) {
        append(*l, 3);  // ~ 430 bytes each
    }
    EXPECT_GT(l->segment_count(), 5u);
    for (const auto& seg : l->segments()) {
        EXPECT_LE(seg->size_bytes(), 2000);
        EXPECT_TRUE(fs::exists(dir() + "/" + segment_file_name(seg->base_offset(), log_suffix)));
    }
    // The rolled segments were flushed in the background (here: inline).
    EXPECT_EQ(l->recovery_point(), l->active_segment().base_offset());
    // A read returns one segment's bytes at most; reading on covers the rest.
    int64_t next = 0;
    int batches = 0;
    while (next < l->log_end_offset()) {
        auto h = read_headers(*l, next);
        ASSERT_FALSE(h.empty());
        EXPECT_EQ(h.front().base_offset, next);
        next = h.back().last_offset() + 1;
        batches += int(h.size());
    }
    EXPECT_EQ(batches, 30);
}

TEST_F(log_fixture, time_based_roll_uses_first_batch_timestamp) {
    config.segment_ms = 1000;
    auto l = open_log();
    append(*l, 1, 10000);
    append(*l, 1, 10900);
    EXPECT_EQ(l->segment_count(), 1u);
    append(*l, 1, 11001);
    EXPECT_EQ(l->segment_count(), 2u);
    EXPECT_EQ(l->active_segment().base_offset(), 2);
}

TEST_F(log_fixture, clean_reopen_restores_state_and_files) {
    uuid id = uuid::random();
    config.segment_bytes = 1500;
    int64_t leo;
    size_t segments;
    {
        log_open_options o;
        o.topic_id = id;
        auto l = open_log(o);
        for (int i = 0; i < 20; ++i) {
            append(*l, 2, 1000 + i, i / 5);
        }
        leo = l->log_end_offset();
        segments = l->segment_count();
        ASSERT_TRUE(l->close());
    }
    EXPECT_EQ(*read_whole_file(dir() + "/partition.metadata"),
              "version: 0\ntopic_id: " + id.to_string() + "\n");
    log_open_options o;
    o.had_clean_shutdown = true;
    o.recovery_point = leo;
    auto l = open_log(o);
    EXPECT_EQ(l->log_end_offset(), leo);
    EXPECT_EQ(l->segment_count(), segments);
    EXPECT_EQ(l->load_report().segments_recovered, 0);
    EXPECT_EQ(l->topic_id(), id);
    EXPECT_EQ(l->leader_epochs().entries().size(), 4u);
    EXPECT_EQ(read_headers(*l, 0).front().base_offset, 0);
    append(*l, 1, 5000, 3);
    EXPECT_EQ(l->log_end_offset(), leo + 1);
}

TEST_F(log_fixture, a_different_topic_id_is_refused) {
    {
        log_open_options o;
        o.topic_id = uuid::random();
        open_log(o);
    }
    log_open_options o;
    o.dir = dir();
    o.tp = {"orders", 0};
    o.topic_id = uuid::random();
    auto l = log::open(o);
    ASSERT_FALSE(l);
    EXPECT_EQ(l.err().code, error_code::inconsistent_topic_id);
}

TEST_F(log_fixture, unreadable_leader_epoch_checkpoint_is_an_error_not_a_crash) {
    fs::create_directories(dir());
    std::ofstream(dir() + "/leader-epoch-checkpoint") << "0\n3\n1 0\n";
    log_open_options o;
    o.dir = dir();
    auto l = log::open(o);
    ASSERT_FALSE(l);
    EXPECT_EQ(l.err().code, error_code::kafka_storage_error);
}

TEST_F(log_fixture, offset_for_timestamp_special_values_and_search) {
    config.segment_bytes = 1500;
    auto l = open_log();
    for (int i = 0; i < 20; ++i) {
        append(*l, 4, 10000 + 100 * i, 7);  // timestamps 10000+100i .. +3
    }
    append(*l, 1, 500, 7);  // an old timestamp at the end
    auto latest = l->offset_for_timestamp(latest_timestamp);
    EXPECT_EQ((*latest)->offset, 81);
    EXPECT_EQ((*latest)->leader_epoch, 7);
    EXPECT_EQ((*l->offset_for_timestamp(earliest_timestamp))->offset, 0);
    auto max = l->offset_for_timestamp(max_timestamp);
    ASSERT_TRUE(max && *max);
    EXPECT_EQ((*max)->timestamp, 10000 + 100 * 19 + 3);
    EXPECT_EQ((*max)->offset, 79);
    auto t = l->offset_for_timestamp(10000 + 100 * 12 + 2);
    ASSERT_TRUE(t && *t);
    EXPECT_EQ((*t)->offset, 12 * 4 + 2);
    EXPECT_EQ((*t)->timestamp, 10000 + 100 * 12 + 2);
    t = l->offset_for_timestamp(10000 + 100 * 12 + 50);  // between batches
    EXPECT_EQ((*t)->offset, 13 * 4);
    t = l->offset_for_timestamp(0);
    EXPECT_EQ((*t)->offset, 0);
    EXPECT_FALSE(*l->offset_for_timestamp(1000000));
    EXPECT_EQ(l->offset_for_timestamp(-7).code(), error_code::invalid_request);
}

TEST_F(log_fixture, truncate_to_across_segments_and_inside_a_batch) {
    config.segment_bytes = 1500;
    auto l = open_log();
    for (int i = 0; i < 20; ++i) {
        append(*l, 3, 1000 + i, i < 10 ? 1 : 2);
    }
    size_t before = l->segment_count();
    l->update_high_watermark(60);
    ASSERT_TRUE(l->truncate_to(31, 0));  // inside batch 30..32: it goes whole
    EXPECT_EQ(l->log_end_offset(), 30);
    EXPECT_LT(l->segment_count(), before);
    EXPECT_EQ(l->high_watermark(), 30);
    EXPECT_LE(l->recovery_point(), 30);
    EXPECT_EQ(l->leader_epochs().entries(), (std::vector<epoch_entry>{{1, 0}}));
    EXPECT_EQ(read_headers(*l, 27).back().last_offset(), 29);
    // The old segments' files are queued for deletion, renamed.
    EXPECT_GT(deletions->pending(), 0u);
    ASSERT_TRUE(deletions->run_all());
    for (const auto& e : fs::directory_iterator(dir())) {
        EXPECT_EQ(e.path().string().find(".deleted"), std::string::npos);
    }
    // Appends continue from 30, with a new epoch.
    auto r = append(*l, 2, 5000, 4);
    EXPECT_EQ(r.first_offset, 30);
    EXPECT_EQ(l->leader_epochs().entries(), (std::vector<epoch_entry>{{1, 0}, {4, 30}}));
    ASSERT_TRUE(l->truncate_to(1000, 0));  // past the end: nothing
    EXPECT_EQ(l->log_end_offset(), 32);
}

TEST_F(log_fixture, truncate_fully_and_start_at) {
    auto l = open_log();
    for (int i = 0; i < 5; ++i) {
        append(*l, 3);
    }
    ASSERT_TRUE(l->truncate_fully_and_start_at(1000, 0));
    EXPECT_EQ(l->log_start_offset(), 1000);
    EXPECT_EQ(l->log_end_offset(), 1000);
    EXPECT_EQ(l->segment_count(), 1u);
    EXPECT_EQ(l->active_segment().base_offset(), 1000);
    EXPECT_TRUE(l->leader_epochs().entries().empty());
    EXPECT_EQ(l->read(kafka_offset{0}, 100, std::nullopt, false).code(),
              error_code::offset_out_of_range);
    EXPECT_EQ(append(*l, 1).first_offset, 1000);
}

TEST_F(log_fixture, delete_records_moves_log_start_and_drops_segments) {
    config.segment_bytes = 1500;
    auto l = open_log();
    for (int i = 0; i < 20; ++i) {
        append(*l, 3);
    }
    l->update_high_watermark(40);
    EXPECT_EQ(l->delete_records_before(41, 0).code(), error_code::offset_out_of_range);
    size_t before = l->segment_count();
    auto lso = l->delete_records_before(25, 0);
    ASSERT_TRUE(lso);
    EXPECT_EQ(*lso, 25);
    EXPECT_EQ(l->log_start_offset(), 25);
    EXPECT_LT(l->segment_count(), before);
    EXPECT_LE(l->segments().front()->base_offset(), 25);
    EXPECT_EQ(l->read(kafka_offset{24}, 100, std::nullopt, false).code(),
              error_code::offset_out_of_range);
    auto h = read_headers(*l, 25);
    EXPECT_EQ(h.front().base_offset, 24);             // the batch holding 25, as Kafka returns it
    EXPECT_EQ(*l->delete_records_before(10, 0), 25);  // never backwards
}

TEST_F(log_fixture, retention_by_bytes_and_time_never_takes_the_active_segment) {
    config.segment_bytes = 1500;
    config.retention_bytes = 3000;
    config.retention_ms = -1;
    auto l = open_log();
    for (int i = 0; i < 30; ++i) {
        append(*l, 3, 1000 + i);
    }
    // Nothing is deleted above the high watermark.
    EXPECT_EQ(*l->delete_old_segments(0), 0);
    l->update_high_watermark(l->log_end_offset());
    auto n = l->delete_old_segments(0);
    ASSERT_TRUE(n);
    EXPECT_GT(*n, 0);
    EXPECT_LE(l->size_bytes(), 3000 + 1500);
    EXPECT_EQ(l->log_start_offset(), l->segments().front()->base_offset());
    // Renamed now, unlinked after file.delete.delay.ms.
    bool renamed = false;
    for (const auto& e : fs::directory_iterator(dir())) {
        renamed |= e.path().string().ends_with(".log.deleted");
    }
    EXPECT_TRUE(renamed);
    ASSERT_TRUE(deletions->run_due(999));
    EXPECT_GT(deletions->pending(), 0u);
    ASSERT_TRUE(deletions->run_due(1000));
    EXPECT_EQ(deletions->pending(), 0u);
    for (const auto& e : fs::directory_iterator(dir())) {
        EXPECT_FALSE(e.path().string().ends_with(".deleted"));
    }
    // By time: everything older than 100 ms at now = 10000, except the active.
    config.retention_bytes = -1;
    config.retention_ms = 100;
    l->update_config(config);
    ASSERT_TRUE(l->delete_old_segments(10000));
    EXPECT_EQ(l->segment_count(), 1u);
    EXPECT_GT(l->active_segment().size_bytes(), 0);
    // cleanup.policy=compact: no time/size retention.
    config.cleanup_delete = false;
    l->update_config(config);
    EXPECT_EQ(*l->delete_old_segments(1 << 30), 0);
}

TEST_F(log_fixture, follower_append_keeps_offsets_and_epochs) {
    auto l = open_log();
    auto b1 = make_batch({.base_offset = 0, .records = 3, .partition_leader_epoch = 2});
    auto b2 = make_batch({.base_offset = 3, .records = 2, .partition_leader_epoch = 5});
    bytes both = b1;
    testing::append_to(both, b2);
    auto r = l->append_as_follower(both, 0);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->first_offset, 0);
    EXPECT_EQ(r->last_offset, 4);
    EXPECT_EQ(l->log_end_offset(), 5);
    EXPECT_EQ(l->leader_epochs().entries(), (std::vector<epoch_entry>{{2, 0}, {5, 3}}));
    EXPECT_EQ(l->append_as_follower(b2, 0).code(), error_code::offset_out_of_range);
    // A gap (compacted leader data) is fine.
    auto b3 = make_batch({.base_offset = 100, .records = 1, .partition_leader_epoch = 5});
    ASSERT_TRUE(l->append_as_follower(b3, 0));
    EXPECT_EQ(l->log_end_offset(), 101);
    EXPECT_EQ(read_headers(*l, 5).front().base_offset, 100);
}

// A follower that wrote records of a new epoch but not the checkpoint naming
// it (a full disk fails the small write) would, restarted, take them for the
// previous epoch's; asking its leader where that epoch ends, it would cut
// them off, committed or not (docs/faults.md, "A full disk lost committed
// records"). The checkpoint comes first, so the records are not written.
TEST_F(log_fixture, a_new_epoch_is_checkpointed_before_its_records) {
    auto l = open_log();
    ASSERT_TRUE(l->append_as_follower(
        make_batch({.base_offset = 0, .records = 3, .partition_leader_epoch = 2}), 0));
    // The checkpoint cannot be replaced: its temporary file is a directory.
    fs::create_directories(dir() + "/leader-epoch-checkpoint.tmp");
    auto r = l->append_as_follower(
        make_batch({.base_offset = 3, .records = 2, .partition_leader_epoch = 3}), 0);
    EXPECT_EQ(r.code(), error_code::kafka_storage_error);
    l.reset();
    fs::remove_all(dir() + "/leader-epoch-checkpoint.tmp");
    auto reopened = open_log();
    ASSERT_TRUE(reopened);
    EXPECT_EQ(reopened->log_end_offset(), 3);
    EXPECT_EQ(reopened->leader_epochs().entries(), (std::vector<epoch_entry>{{2, 0}}));
}

// Records the checkpoint does not cover (written by an older version, or a
// checkpoint restored from a backup) get their epochs back from recovery.
TEST_F(log_fixture, recovery_adds_the_epochs_the_checkpoint_lacks) {
    {
        auto l = open_log();
        bytes all = make_batch({.base_offset = 0, .records = 3, .partition_leader_epoch = 2});
        testing::append_to(
            all, make_batch({.base_offset = 3, .records = 2, .partition_leader_epoch = 3}));
        testing::append_to(
            all, make_batch({.base_offset = 5, .records = 1, .partition_leader_epoch = 5}));
        ASSERT_TRUE(l->append_as_follower(all, 0));
    }
    std::ofstream(dir() + "/leader-epoch-checkpoint", std::ios::trunc) << "0\n1\n2 0\n";
    auto l = open_log();  // no clean shutdown: the segment is recovered
    ASSERT_TRUE(l);
    const std::vector<epoch_entry> want{{2, 0}, {3, 3}, {5, 5}};
    EXPECT_EQ(l->leader_epochs().entries(), want);
    EXPECT_EQ(l->leader_epochs().end_offset_for(2, l->log_end_offset()), (epoch_entry{2, 3}));
    // Written through: a clean open reads them back.
    ASSERT_TRUE(l->close());
    l.reset();
    log_open_options clean;
    clean.had_clean_shutdown = true;
    clean.recovery_point = 6;
    auto again = open_log(clean);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->leader_epochs().entries(), want);
}

TEST_F(log_fixture, close_and_rename_for_delete_uses_kafka_naming) {
    auto l = open_log();
    append(*l, 3);
    auto renamed = l->close_and_rename_for_delete(0);
    ASSERT_TRUE(renamed) << renamed.err().message;
    EXPECT_FALSE(fs::exists(dir()));
    std::string name = fs::path(*renamed).filename().string();
    EXPECT_TRUE(name.starts_with("orders-0."));
    EXPECT_TRUE(name.ends_with("-delete"));
    EXPECT_EQ(name.size(), std::string("orders-0.").size() + 32 + 7);
    ASSERT_TRUE(deletions->run_all());
    EXPECT_FALSE(fs::exists(*renamed));
}

}  // namespace
}  // namespace samsa::storage
