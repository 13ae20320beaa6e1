#include "storage/log_manager.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "storage/checkpoint_file.h"
#include "storage/file_util.h"
#include "storage/temp_dir.h"
#include "storage/test_batches.h"

namespace samsa::storage {
namespace {

using testing::make_batch;
using testing::temp_dir;
namespace fs = std::filesystem;

struct log_manager_fixture : ::testing::Test {
    temp_dir root;
    log_manager_config config = [this] {
        log_manager_config c;
        c.log_dirs = {root.file("data")};
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

    static void append(log& l, int batches, int records = 3) {
        for (int i = 0; i < batches; ++i) {
            auto b = make_batch({.base_offset = 0, .records = records, .value_size = 100});
            ASSERT_TRUE(l.append_as_leader(b, 0, 0));
        }
        l.update_high_watermark(l.log_end_offset());
    }
};

TEST_F(log_manager_fixture, creates_partitions_and_finds_them_after_a_clean_restart) {
    uuid id = uuid::random();
    int64_t leo;
    {
        auto m = open_manager();
        auto l = m->get_or_create({"orders", 0}, id, 0);
        ASSERT_TRUE(l);
        append(**l, 20);
        leo = (*l)->log_end_offset();
        ASSERT_TRUE(m->get_or_create({"orders", 1}, id, 0));
        EXPECT_EQ(m->log_count(), 2u);
        EXPECT_EQ(m->get({"orders", 0}), *l);
        EXPECT_EQ(m->get({"orders", 7}), nullptr);
        ASSERT_TRUE(m->shutdown());
    }
    auto data = root.file("data");
    EXPECT_TRUE(fs::exists(data + "/orders-0/partition.metadata"));
    EXPECT_TRUE(fs::exists(data + "/.kafka_cleanshutdown"));
    auto rp = read_offset_checkpoint(data + "/recovery-point-offset-checkpoint");
    ASSERT_TRUE(rp);
    EXPECT_EQ((rp->at({"orders", 0})), leo);
    EXPECT_EQ((rp->at({"orders", 1})), 0);
    EXPECT_EQ((read_offset_checkpoint(data + "/replication-offset-checkpoint")->at({"orders", 0})),
              leo);
    EXPECT_EQ((read_offset_checkpoint(data + "/log-start-offset-checkpoint")->at({"orders", 0})),
              0);

    auto m = open_manager();
    EXPECT_TRUE(m->log_dirs()[0].had_clean_shutdown);
    EXPECT_FALSE(fs::exists(data + "/.kafka_cleanshutdown"));  // a crash now is unclean
    auto l = m->get({"orders", 0});
    ASSERT_TRUE(l);
    EXPECT_EQ(l->log_end_offset(), leo);
    EXPECT_EQ(l->high_watermark(), leo);
    EXPECT_EQ(l->load_report().segments_recovered, 0);
    EXPECT_EQ(l->topic_id(), id);
    EXPECT_EQ(m->get_or_create({"orders", 0}, uuid::random(), 0).code(),
              error_code::inconsistent_topic_id);
}

TEST_F(log_manager_fixture, unclean_restart_recovers_from_the_recovery_point) {
    {
        auto m = open_manager();
        auto l = *m->get_or_create({"t", 0}, std::nullopt, 0);
        append(*l, 30);
        ASSERT_GT(l->segment_count(), 3u);
        ASSERT_TRUE(m->checkpoint_recovery_points());
        // No shutdown: the process "dies" here.
    }
    auto m = open_manager();
    EXPECT_FALSE(m->log_dirs()[0].had_clean_shutdown);
    auto l = m->get({"t", 0});
    ASSERT_TRUE(l);
    EXPECT_EQ(l->log_end_offset(), 90);
    // Rolled segments were flushed and checkpointed: only the tail is re-read.
    EXPECT_EQ(l->load_report().segments_recovered, 1);
    EXPECT_EQ(l->recovery_point(), 90);
}

TEST_F(log_manager_fixture, corrupt_checkpoint_is_ignored_with_a_warning_and_full_recovery) {
    {
        auto m = open_manager();
        append(**m->get_or_create({"t", 0}, std::nullopt, 0), 10);
        ASSERT_TRUE(m->shutdown());
    }
    std::ofstream(root.file("data/recovery-point-offset-checkpoint")) << "0\n5\nt 0 1\n";
    fs::remove(root.file("data/.kafka_cleanshutdown"));
    auto m = open_manager();
    ASSERT_EQ(m->log_dirs()[0].warnings.size(), 1u);
    EXPECT_NE(m->log_dirs()[0].warnings[0].find("recovery-point-offset-checkpoint"),
              std::string::npos);
    auto l = m->get({"t", 0});
    EXPECT_EQ(l->load_report().segments_recovered, int(l->segment_count()));
    EXPECT_EQ(l->log_end_offset(), 30);
}

TEST_F(log_manager_fixture, unreadable_partition_is_offline_and_the_rest_loads) {
    {
        auto m = open_manager();
        append(**m->get_or_create({"good", 0}, std::nullopt, 0), 3);
        append(**m->get_or_create({"bad", 0}, std::nullopt, 0), 3);
        ASSERT_TRUE(m->shutdown());
    }
    std::ofstream(root.file("data/bad-0/leader-epoch-checkpoint")) << "garbage\n";
    auto m = open_manager();
    EXPECT_TRUE(m->get({"good", 0}));
    EXPECT_FALSE(m->get({"bad", 0}));
    auto offline = m->offline_partitions();
    ASSERT_EQ(offline.size(), 1u);
    EXPECT_EQ(offline[0].tp, (topic_partition{"bad", 0}));
    EXPECT_EQ(offline[0].err.code, error_code::kafka_storage_error);
    EXPECT_EQ(m->get_or_create({"bad", 0}, std::nullopt, 0).code(),
              error_code::kafka_storage_error);
    // Deleting an offline partition removes its directory all the same.
    ASSERT_TRUE(m->delete_log({"bad", 0}, 0));
    ASSERT_TRUE(m->run_pending_deletions(0));
    EXPECT_FALSE(fs::exists(root.file("data/bad-0")));
    EXPECT_TRUE(m->offline_partitions().empty());
}

TEST_F(log_manager_fixture, delete_log_renames_then_removes_and_restart_finishes_deletes) {
    auto m = open_manager();
    append(**m->get_or_create({"gone", 2}, std::nullopt, 0), 3);
    config.defaults.file_delete_delay_ms = 60000;
    ASSERT_TRUE(m->delete_log({"gone", 2}, 0));
    EXPECT_FALSE(m->get({"gone", 2}));
    EXPECT_FALSE(fs::exists(root.file("data/gone-2")));
    int delete_dirs = 0;
    for (const auto& e : fs::directory_iterator(root.file("data"))) {
        std::string n = e.path().filename().string();
        if (n.starts_with("gone-2.") && n.ends_with("-delete")) {
            ++delete_dirs;
        }
    }
    EXPECT_EQ(delete_dirs, 1);
    EXPECT_EQ(m->delete_log({"gone", 2}, 0).code(), error_code::unknown_topic_or_partition);
    // A restart before the delete ran: the -delete dir is not loaded, and goes.
    m.reset();
    auto m2 = open_manager();
    EXPECT_EQ(m2->log_count(), 0u);
    ASSERT_TRUE(m2->run_pending_deletions(0));
    EXPECT_TRUE(fs::is_empty(root.file("data")) || !fs::exists(root.file("data/gone-2")));
    for (const auto& e : fs::directory_iterator(root.file("data"))) {
        EXPECT_FALSE(e.path().filename().string().ends_with("-delete"));
    }
}

TEST_F(log_manager_fixture, spreads_partitions_over_log_dirs_and_survives_a_bad_one) {
    std::ofstream(root.file("not-a-dir")) << "x";
    config.log_dirs = {root.file("d1"), root.file("d2/"), root.file("not-a-dir")};
    auto m = open_manager();
    auto dirs = m->log_dirs();
    EXPECT_FALSE(dirs[0].offline);
    EXPECT_FALSE(dirs[1].offline);
    EXPECT_TRUE(dirs[2].offline);
    for (int p = 0; p < 4; ++p) {
        ASSERT_TRUE(m->get_or_create({"t", p}, std::nullopt, 0));
    }
    int in_d1 = 0;
    for (int p = 0; p < 4; ++p) {
        in_d1 += fs::exists(root.file("d1/t-" + std::to_string(p))) ? 1 : 0;
    }
    EXPECT_EQ(in_d1, 2);
    ASSERT_TRUE(m->write_checkpoints());
    EXPECT_EQ(read_offset_checkpoint(root.file("d1/recovery-point-offset-checkpoint"))->size(), 2u);
    EXPECT_EQ(read_offset_checkpoint(root.file("d2/recovery-point-offset-checkpoint"))->size(), 2u);
}

TEST_F(log_manager_fixture, several_recovery_threads_per_dir_open_and_close_every_log) {
    // num.recovery.threads.per.data.dir=4 over two dirs: an unclean start
    // recovers every log (one unreadable among them goes offline alone), a
    // shutdown closes them all and marks both dirs clean.
    config.log_dirs = {root.file("d1"), root.file("d2")};
    config.recovery_threads_per_dir = 4;
    constexpr int partitions = 24;
    {
        auto m = open_manager();
        for (int p = 0; p < partitions; ++p) {
            append(**m->get_or_create({"t", p}, std::nullopt, 0), 1 + p % 5);
        }
        ASSERT_TRUE(m->checkpoint_recovery_points());
        // No shutdown: the process "dies" here.
    }
    const auto bad = fs::exists(root.file("d1/t-7")) ? root.file("d1/t-7") : root.file("d2/t-7");
    std::ofstream(bad + "/leader-epoch-checkpoint") << "garbage\n";
    {
        auto m = open_manager();
        EXPECT_EQ(m->log_count(), size_t(partitions - 1));
        for (int p = 0; p < partitions; ++p) {
            auto l = m->get({"t", p});
            if (p == 7) {
                EXPECT_FALSE(l);
                continue;
            }
            ASSERT_TRUE(l) << p;
            EXPECT_EQ(l->log_end_offset(), 3 * (1 + p % 5)) << p;
        }
        ASSERT_EQ(m->offline_partitions().size(), 1u);
        EXPECT_EQ(m->offline_partitions()[0].tp, (topic_partition{"t", 7}));
        ASSERT_TRUE(m->shutdown());
    }
    EXPECT_TRUE(fs::exists(root.file("d1/.kafka_cleanshutdown")));
    EXPECT_TRUE(fs::exists(root.file("d2/.kafka_cleanshutdown")));
    auto m = open_manager();
    EXPECT_TRUE(m->log_dirs()[0].had_clean_shutdown);
    EXPECT_TRUE(m->log_dirs()[1].had_clean_shutdown);
    for (int p = 0; p < partitions; ++p) {
        if (auto l = m->get({"t", p})) {
            EXPECT_EQ(l->load_report().segments_recovered, 0) << p;
            EXPECT_EQ(l->log_end_offset(), 3 * (1 + p % 5)) << p;
        }
    }
}

TEST_F(log_manager_fixture, no_usable_log_dir_is_an_error) {
    std::ofstream(root.file("f")) << "x";
    config.log_dirs = {root.file("f")};
    auto m = log_manager::open(config, 0);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.err().code, error_code::kafka_storage_error);
}

TEST_F(log_manager_fixture, run_retention_applies_topic_configs) {
    config.topic_config = [this](const std::string& topic) {
        log_config c = config.defaults;
        if (topic == "short") {
            c.retention_bytes = 0;
        }
        return c;
    };
    auto m = open_manager();
    auto a = *m->get_or_create({"short", 0}, std::nullopt, 0);
    auto b = *m->get_or_create({"long", 0}, std::nullopt, 0);
    append(*a, 20);
    append(*b, 20);
    size_t b_segments = b->segment_count();
    auto n = m->run_retention(0);
    ASSERT_TRUE(n);
    EXPECT_GT(*n, 0);
    EXPECT_EQ(a->segment_count(), 1u);
    EXPECT_EQ(b->segment_count(), b_segments);
    EXPECT_EQ(a->log_start_offset(), a->active_segment().base_offset());
    ASSERT_TRUE(m->run_pending_deletions(0));
    ASSERT_TRUE(m->checkpoint_log_start_offsets());
    EXPECT_EQ(
        (read_offset_checkpoint(root.file("data/log-start-offset-checkpoint"))->at({"short", 0})),
        a->log_start_offset());
}

}  // namespace
}  // namespace samsa::storage
