#include "raft/storage_raft_log.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "raft/raft_batch_codec.h"
#include "raft/raft_node.h"
#include "raft_test_util.h"

namespace samsa::raft {
namespace {

namespace fs = std::filesystem;
using test::records;

raft_offset o(int64_t v) {
    return raft_offset{v};
}
raft_epoch e(int32_t v) {
    return raft_epoch{v};
}

class storage_raft_log_test : public ::testing::Test {
  protected:
    void SetUp() override {
        _dir = fs::temp_directory_path() /
               fmt::format("samsa-raft-log-{}-{}", ::getpid(),
                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(_dir);
        fs::create_directories(_dir);
    }
    void TearDown() override {
        _log.reset();
        fs::remove_all(_dir);
    }

    storage_raft_log& open() {
        _log.reset();
        storage::log_open_options opts;
        opts.tp = {"__cluster_metadata", 0};
        opts.dir = (_dir / "__cluster_metadata-0").string();
        opts.config.retention_ms = -1;
        opts.config.retention_bytes = -1;
        auto l = storage::log::open(std::move(opts));
        EXPECT_TRUE(l) << l.err().message;
        auto r = storage_raft_log::open(std::move(*l), [] { return int64_t(1000); });
        EXPECT_TRUE(r);
        _log = std::move(*r);
        return *_log;
    }

    fs::path _dir;
    std::unique_ptr<storage_raft_log> _log;
};

TEST(raft_batch_codec, batches_travel_as_record_batches_and_a_cut_tail_is_left_out) {
    raft_batch a{o(7), e(2), control_record_type::leader_change, records({"lc"})};
    raft_batch b{o(8), e(2), control_record_type::none, records({"x", "", "z"})};
    auto ea = encode_record_batch(a, 5);
    auto eb = encode_record_batch(b, 5);
    ASSERT_TRUE(ea && eb);
    bytes wire = *ea;
    wire.insert(wire.end(), eb->begin(), eb->end());
    wire.insert(wire.end(), eb->begin(), eb->begin() + 20);  // a Fetch cut at max_bytes
    auto decoded = decode_record_batches(wire);
    ASSERT_TRUE(decoded) << decoded.err().message;
    ASSERT_EQ(decoded->size(), 2u);
    EXPECT_EQ((*decoded)[0], a);
    EXPECT_EQ((*decoded)[1], b);
}

TEST_F(storage_raft_log_test, batches_round_trip_as_kafka_record_batches) {
    auto& log = open();
    ASSERT_TRUE(log.append_as_leader(records({"lc"}), e(1), control_record_type::leader_change));
    auto last = log.append_as_leader(records({"a", "b"}), e(1), control_record_type::none);
    ASSERT_TRUE(last);
    EXPECT_EQ(*last, o(2));
    EXPECT_EQ(log.end_offset(), o(3));
    EXPECT_EQ(log.last_epoch(), e(1));

    auto read = log.read(o(0), 1 << 20);
    ASSERT_TRUE(read) << read.err().message;
    ASSERT_EQ(read->size(), 2u);
    EXPECT_EQ((*read)[0].control, control_record_type::leader_change);
    EXPECT_EQ((*read)[0].records, records({"lc"}));
    EXPECT_EQ((*read)[1].base_offset, o(1));
    EXPECT_EQ((*read)[1].epoch, e(1));
    EXPECT_EQ((*read)[1].records, records({"a", "b"}));
}

TEST_F(storage_raft_log_test, follower_appends_keep_the_leaders_epochs) {
    auto& log = open();
    using cr = control_record_type;
    ASSERT_TRUE(log.append_as_follower(
        {{o(0), e(1), cr::none, records({"a", "b"})}, {o(2), e(3), cr::none, records({"c"})}}));
    EXPECT_EQ(log.end_offset_for_epoch(e(1)), (offset_and_epoch{o(2), e(1)}));
    EXPECT_EQ(log.end_offset_for_epoch(e(2)), (offset_and_epoch{o(2), e(1)}));
    EXPECT_EQ(log.end_offset_for_epoch(e(3)), (offset_and_epoch{o(3), e(3)}));
    EXPECT_EQ(log.end_offset_for_epoch(e(7)), (offset_and_epoch{o(3), e(3)}));
    EXPECT_EQ(log.epoch_for_offset(o(2)), e(3));

    ASSERT_TRUE(log.truncate_to(o(2)));
    EXPECT_EQ(log.end_offset(), o(2));
    EXPECT_EQ(log.last_epoch(), e(1));
    EXPECT_FALSE(log.append_as_follower({{o(5), e(4), cr::none, records({"x"})}}));
}

TEST_F(storage_raft_log_test, flush_moves_the_durable_end) {
    auto& log = open();
    ASSERT_TRUE(log.append_as_leader(records({"a"}), e(1), control_record_type::none));
    ASSERT_TRUE(log.flush());
    EXPECT_EQ(log.durable_end_offset(), o(1));
}

TEST_F(storage_raft_log_test, snapshots_are_checkpoint_files_found_again_on_open) {
    EXPECT_EQ(snapshot_file_name({o(100), e(3)}), "00000000000000000100-0000000003.checkpoint");
    EXPECT_EQ(parse_snapshot_file_name("00000000000000000100-0000000003.checkpoint"),
              (offset_and_epoch{o(100), e(3)}));
    EXPECT_FALSE(parse_snapshot_file_name("00000000000000000100.log"));

    auto& log = open();
    ASSERT_TRUE(log.append_as_leader(records({"a", "b"}), e(1), control_record_type::none));
    ASSERT_TRUE(log.append_as_leader(records({"c"}), e(2), control_record_type::none));
    ASSERT_TRUE(log.flush());
    auto data = std::make_shared<const bytes>(bytes{7, 8, 9});
    ASSERT_TRUE(log.store_snapshot({{o(2), e(1)}, data}));
    EXPECT_TRUE(fs::exists(_dir / "__cluster_metadata-0" / snapshot_file_name({o(2), e(1)})));

    auto& again = open();
    auto s = again.latest_snapshot();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->id, (offset_and_epoch{o(2), e(1)}));
    EXPECT_EQ(*s->data, *data);

    auto dropped = again.truncate_before_latest_snapshot();
    ASSERT_TRUE(dropped) << dropped.err().message;
    EXPECT_TRUE(*dropped);
    EXPECT_EQ(again.start_offset(), o(2));
    EXPECT_EQ(again.epoch_for_offset(o(1)), e(1));
    EXPECT_EQ(again.end_offset_for_epoch(e(1)), (offset_and_epoch{o(2), e(1)}));
}

TEST_F(storage_raft_log_test, retention_reads_snapshot_sizes_and_header_timestamps_from_disk) {
    auto& log = open();
    for (int i = 0; i < 4; ++i) {
        ASSERT_TRUE(log.append_as_leader(records({"x"}), e(1), control_record_type::none));
    }
    ASSERT_TRUE(log.flush());
    ASSERT_TRUE(log.store_snapshot({{o(2), e(1)}, test::snapshot_data(1000, 10)}));
    ASSERT_TRUE(log.store_snapshot({{o(4), e(1)}, test::snapshot_data(9000, 20)}));
    const auto old_file = _dir / "__cluster_metadata-0" / snapshot_file_name({o(2), e(1)});

    auto& again = open();  // nothing cached: read back from the files
    auto infos = again.snapshot_infos();
    ASSERT_EQ(infos.size(), 2u);
    EXPECT_EQ(infos[0].size_bytes, int64_t(fs::file_size(old_file)));
    EXPECT_EQ(infos[0].timestamp_ms, 1000);
    EXPECT_EQ(infos[1].timestamp_ms, 9000);
    EXPECT_GT(again.size_bytes(), 0);

    // metadata.max.retention.ms=5000 at 10,000 ms: the older snapshot goes.
    auto cleaned = clean_snapshots(again, {-1, 5000}, 10'000);
    ASSERT_TRUE(cleaned) << cleaned.err().message;
    EXPECT_TRUE(*cleaned);
    EXPECT_EQ(again.start_offset(), o(4));
    EXPECT_FALSE(fs::exists(old_file));
    ASSERT_EQ(again.snapshot_infos().size(), 1u);
    EXPECT_EQ(again.latest_snapshot()->id, (offset_and_epoch{o(4), e(1)}));
}

TEST_F(storage_raft_log_test, installing_a_snapshot_past_the_end_restarts_the_log_there) {
    auto& log = open();
    ASSERT_TRUE(log.append_as_leader(records({"a"}), e(1), control_record_type::none));
    ASSERT_TRUE(log.store_snapshot({{o(50), e(4)}, std::make_shared<const bytes>(bytes{1})}));
    auto t = log.truncate_to_latest_snapshot();
    ASSERT_TRUE(t);
    EXPECT_TRUE(*t);
    EXPECT_EQ(log.start_offset(), o(50));
    EXPECT_EQ(log.end_offset(), o(50));
    EXPECT_EQ(log.last_epoch(), e(4));
    ASSERT_TRUE(log.append_as_follower({{o(50), e(4), control_record_type::none, records({"z"})}}));
    EXPECT_EQ(log.end_offset(), o(51));
}

TEST_F(storage_raft_log_test, a_quorum_of_one_commits_and_replays_after_restart) {
    memory_quorum_state_store store;
    raft_config config;
    config.local_id = node_id{1};
    config.voters = {node_id{1}};
    {
        auto& log = open();
        test::capture_transport transport(store);
        test::recording_listener listener;
        seeded_random random(1);
        raft_node n(config, log, store, transport, listener, random);
        ASSERT_TRUE(n.start(test::at(0)));
        n.poll(test::at(0));
        ASSERT_TRUE(n.is_leader());
        ASSERT_TRUE(n.append(records({"topic-a"}), test::at(1)));
        n.poll(test::at(100));
        EXPECT_EQ(n.high_watermark(), o(2));
    }
    auto& log = open();
    test::capture_transport transport(store);
    test::recording_listener listener;
    seeded_random random(2);
    raft_node n(config, log, store, transport, listener, random);
    ASSERT_TRUE(n.start(test::at(0)));
    EXPECT_EQ(n.role(), role_kind::resigned);
    n.poll(test::at(5000));
    ASSERT_TRUE(n.is_leader());
    EXPECT_EQ(n.epoch(), e(2));
    ASSERT_EQ(listener.commits.size(), 3u);
    EXPECT_EQ(listener.commits[1].records, records({"topic-a"}));
    EXPECT_EQ(listener.commits[2].epoch, e(2));
    EXPECT_EQ(listener.leaders.back(), (leader_and_epoch{node_id{1}, e(2)}));
}

}  // namespace
}  // namespace samsa::raft
