// Moving a replica between log dirs at the storage level (log_dir_move.cc):
// renaming a live log, future logs, the swap, and what a restart finds after
// a crash at each point.
#include <gtest/gtest.h>

#include <filesystem>

#include "storage/checkpoint_file.h"
#include "storage/log_manager.h"
#include "storage/temp_dir.h"
#include "storage/test_batches.h"
#include "storage/topic_partition.h"

namespace samsa::storage {
namespace {

using testing::make_batch;
using testing::temp_dir;
namespace fs = std::filesystem;

const topic_partition tp{"moving", 0};

struct log_dir_move_fixture : ::testing::Test {
    temp_dir root;
    log_manager_config config = [this] {
        log_manager_config c;
        c.log_dirs = {root.file("d1"), root.file("d2")};
        c.defaults.segment_bytes = 2000;
        c.defaults.index_interval_bytes = 256;
        c.defaults.segment_index_bytes = 64 * 1024;
        c.defaults.file_delete_delay_ms = 0;
        return c;
    }();

    std::unique_ptr<log_manager> open_manager() {
        auto m = log_manager::open(config, 0);
        EXPECT_TRUE(m.has_value()) << (m ? "" : m.err().message);
        return m ? std::move(*m) : nullptr;
    }

    static void append(log& l, int batches) {
        for (int i = 0; i < batches; ++i) {
            auto b = make_batch({.base_offset = 0, .records = 3, .value_size = 100});
            ASSERT_TRUE(l.append_as_leader(b, 0, 0));
        }
        l.update_high_watermark(l.log_end_offset());
    }

    // What the partition's shard does (cluster/log_dir_mover.h), without
    // the epochs: copies everything the future log lacks.
    static void copy_all(const log& from, log& to) {
        while (to.log_end_offset() < from.log_end_offset()) {
            auto r = from.read(kafka_offset(to.log_end_offset()), 1 << 20, std::nullopt, true);
            ASSERT_TRUE(r);
            auto b = r->records.read();
            ASSERT_TRUE(b);
            ASSERT_TRUE(to.append_as_follower(bytes_view(b->data(), b->size()), 0));
        }
    }

    // The log dir (d1 or d2) holding `tp`'s current log, or "".
    static std::string dir_of(log_manager& m) {
        auto l = m.get(tp);
        return l ? fs::path(l->dir()).parent_path().filename().string() : "";
    }

    int dirs_named(const std::string& dir, std::string_view suffix) {
        int n = 0;
        for (const auto& e : fs::directory_iterator(root.file(dir))) {
            n += e.path().filename().string().ends_with(suffix) ? 1 : 0;
        }
        return n;
    }
};

TEST(log_dir_names, future_dir_names_parse_back_and_long_names_are_refused) {
    const std::string id(32, 'a');
    auto name = future_dir_name({"a.b-c", 12}, id);
    ASSERT_TRUE(name);
    EXPECT_EQ(*name, "a.b-c-12." + id + "-future");
    EXPECT_EQ(parse_future_dir_name(*name), (topic_partition{"a.b-c", 12}));
    EXPECT_FALSE(parse_future_dir_name("a.b-c-12"));
    EXPECT_FALSE(parse_future_dir_name("a.b-c-12.xyz-future"));
    EXPECT_FALSE(parse_partition_dir_name(*name));
    EXPECT_FALSE(future_dir_name({std::string(249, 't'), 0}, id));
}

TEST_F(log_dir_move_fixture, a_live_log_renamed_keeps_appending_rolling_and_reopens) {
    auto m = open_manager();
    auto l = *m->get_or_create(tp, std::nullopt, 0);
    append(*l, 10);
    const auto old_dir = l->dir();
    const auto new_dir = root.file("d2/moving-0");
    ASSERT_TRUE(l->rename_dir(new_dir));
    EXPECT_EQ(l->dir(), new_dir);
    EXPECT_FALSE(fs::exists(old_dir));
    append(*l, 20);  // rolls segments in the new directory
    ASSERT_TRUE(l->roll(0));
    ASSERT_TRUE(l->flush());
    const auto leo = l->log_end_offset();
    ASSERT_TRUE(l->close());
    EXPECT_TRUE(fs::exists(new_dir + "/leader-epoch-checkpoint"));
    for (const auto& e : fs::directory_iterator(new_dir)) {
        EXPECT_EQ(e.path().parent_path().string(), new_dir);
    }
    log_open_options o;
    o.dir = new_dir;
    o.tp = tp;
    o.config = config.defaults;
    o.deletions = std::make_shared<deletion_queue>();
    auto reopened = log::open(o);
    ASSERT_TRUE(reopened) << reopened.err().message;
    EXPECT_EQ((*reopened)->log_end_offset(), leo);
}

TEST_F(log_dir_move_fixture, a_caught_up_future_log_takes_the_current_ones_place) {
    auto m = open_manager();
    auto current = *m->get_or_create(tp, std::nullopt, 0);
    ASSERT_EQ(dir_of(*m), "d1");
    append(*current, 12);

    auto d2 = m->online_log_dir(root.file("d2/"));
    ASSERT_TRUE(d2);
    auto future = m->create_future(tp, *d2, 0);
    ASSERT_TRUE(future && *future);
    EXPECT_EQ(m->get_future(tp), *future);
    EXPECT_EQ(dirs_named("d2", "-future"), 1);
    // Asked again for the same dir: the same future log.
    EXPECT_EQ(*m->create_future(tp, *d2, 0), *future);

    // Not caught up: refused.
    EXPECT_EQ(m->replace_current_with_future(tp, 0).code(), error_code::kafka_storage_error);
    copy_all(*current, **future);
    auto moved = m->replace_current_with_future(tp, 0);
    ASSERT_TRUE(moved) << moved.err().message;
    EXPECT_EQ(*moved, *future);
    EXPECT_EQ(m->get(tp), *future);
    EXPECT_FALSE(m->get_future(tp));
    EXPECT_EQ(dir_of(*m), "d2");
    EXPECT_EQ((*moved)->high_watermark(), current->high_watermark());
    EXPECT_EQ(dirs_named("d2", "-future"), 0);
    EXPECT_FALSE(fs::exists(root.file("d1/moving-0")));
    ASSERT_TRUE(m->run_pending_deletions(0));
    EXPECT_EQ(dirs_named("d1", "-delete"), 0);

    // It goes on taking writes, and a restart finds it in d2.
    append(**moved, 3);
    const auto leo = (*moved)->log_end_offset();
    ASSERT_TRUE(m->shutdown());
    m.reset();
    auto again = open_manager();
    ASSERT_TRUE(again->get(tp));
    EXPECT_EQ(again->get(tp)->log_end_offset(), leo);
    EXPECT_EQ(dir_of(*again), "d2");
}

TEST_F(log_dir_move_fixture, naming_the_current_dir_cancels_a_move) {
    auto m = open_manager();
    append(**m->get_or_create(tp, std::nullopt, 0), 3);
    ASSERT_TRUE(*m->create_future(tp, *m->online_log_dir(root.file("d2")), 0));
    auto cancelled = m->create_future(tp, *m->online_log_dir(root.file("d1")), 0);
    ASSERT_TRUE(cancelled);
    EXPECT_FALSE(*cancelled);
    EXPECT_FALSE(m->get_future(tp));
    EXPECT_EQ(dirs_named("d2", "-future"), 0);
}

TEST_F(log_dir_move_fixture, dirs_and_replicas_that_are_not_there_are_refused) {
    auto m = open_manager();
    EXPECT_EQ(m->online_log_dir(root.file("elsewhere")).code(), error_code::log_dir_not_found);
    EXPECT_EQ(m->create_future(tp, *m->online_log_dir(root.file("d2")), 0).code(),
              error_code::replica_not_available);
    // A move asked for before the replica exists decides where it is created.
    m->set_preferred_dir({"later", 0}, *m->online_log_dir(root.file("d2")));
    ASSERT_TRUE(m->get_or_create({"later", 0}, std::nullopt, 0));
    EXPECT_TRUE(fs::exists(root.file("d2/later-0")));
}

TEST_F(log_dir_move_fixture, a_restart_resumes_a_future_log_and_drops_an_orphan) {
    {
        auto m = open_manager();
        auto current = *m->get_or_create(tp, std::nullopt, 0);
        append(*current, 6);
        auto future = *m->create_future(tp, *m->online_log_dir(root.file("d2")), 0);
        copy_all(*current, *future);
        append(*current, 2);  // the copy is behind when the broker stops
        ASSERT_TRUE(m->shutdown());
    }
    // An orphan: a future dir whose partition has no log here.
    fs::create_directories(root.file("d2/gone-3." + std::string(32, '0') + "-future"));
    auto m = open_manager();
    auto future = m->get_future(tp);
    ASSERT_TRUE(future);
    EXPECT_EQ(future->log_end_offset(), 18);
    EXPECT_EQ(m->get(tp)->log_end_offset(), 24);
    EXPECT_FALSE(m->get_future({"gone", 3}));
    ASSERT_TRUE(m->run_pending_deletions(0));
    EXPECT_EQ(dirs_named("d2", "-future"), 1);
    // Its recovery point came from d2's checkpoint: nothing was re-read.
    EXPECT_EQ(future->load_report().segments_recovered, 0);
}

TEST_F(log_dir_move_fixture, a_crash_between_the_two_renames_keeps_the_longer_copy) {
    {
        auto m = open_manager();
        auto current = *m->get_or_create(tp, std::nullopt, 0);
        append(*current, 6);
        ASSERT_TRUE(m->shutdown());
    }
    // An older copy, kept aside under a name that is no partition's.
    fs::copy(root.file("d1/moving-0"), root.file("d2/old"), fs::copy_options::recursive);
    {
        auto m = open_manager();
        append(*m->get(tp), 2);
        ASSERT_TRUE(m->shutdown());
    }
    // The future log took its final name in d2 and the current one in d1
    // was not renamed yet: two copies, the one in d2 longer (an OS crash can
    // leave either flushed less).
    fs::rename(root.file("d1/moving-0"), root.file("d2/moving-0"));
    fs::rename(root.file("d2/old"), root.file("d1/moving-0"));
    auto m = open_manager();
    ASSERT_TRUE(m->get(tp));
    EXPECT_EQ(m->get(tp)->log_end_offset(), 24);
    EXPECT_EQ(dir_of(*m), "d2");
    EXPECT_TRUE(m->offline_partitions().empty());
    bool warned = false;
    for (const auto& d : m->log_dirs()) {
        for (const auto& w : d.warnings) {
            warned |= w.find("duplicate log directories for moving-0") != std::string::npos;
        }
    }
    EXPECT_TRUE(warned);
    ASSERT_TRUE(m->run_pending_deletions(0));
    EXPECT_FALSE(fs::exists(root.file("d1/moving-0")));
}

}  // namespace
}  // namespace samsa::storage
