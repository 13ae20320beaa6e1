#include "cluster/partition.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/clock.h"
#include "record/batch_builder.h"
#include "record/batch_header.h"

namespace samsa::cluster {
namespace {

class partition_test : public ::testing::Test {
  protected:
    void SetUp() override {
        auto base = std::filesystem::temp_directory_path() / "samsa-partition-XXXXXX";
        std::string tmpl = base.string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        _dir = tmpl;
        storage::log_open_options o;
        o.dir = _dir + "/t-0";
        o.tp = {"t", 0};
        o.now_ms = wall_clock_ms();
        auto l = storage::log::open(o);
        ASSERT_TRUE(l) << l.err().message;
        _p = std::make_unique<partition>(o.tp, uuid::random(), node_id{1}, *l);
        metadata::partition_registration reg;
        reg.partition = 0;
        reg.leader = node_id{1};
        reg.leader_epoch = 3;
        reg.replicas = to_node_ids({1});
        reg.isr = to_node_ids({1});
        _p->update_registration(reg);
    }
    void TearDown() override {
        _p.reset();
        std::error_code ec;
        std::filesystem::remove_all(_dir, ec);
    }

    static bytes batch(int n, int64_t ts, record::compression c = record::compression::none) {
        record::batch_options o;
        o.codec = c;
        record::batch_builder b(o);
        for (int i = 0; i < n; ++i) {
            std::string v = "value-" + std::to_string(i);
            b.add(ts, std::nullopt, as_bytes_view(v));
        }
        auto r = b.build();
        EXPECT_TRUE(r);
        return *r;
    }

    produce_outcome produce(bytes& b, int16_t acks = 1) {
        return _p->append_records(b, 9, acks, wall_clock_ms());
    }

    std::string _dir;
    std::unique_ptr<partition> _p;
};

TEST_F(partition_test, produce_assigns_offsets_and_stamps_the_leader_epoch) {
    auto now = wall_clock_ms();
    auto b1 = batch(3, now);
    auto r1 = produce(b1);
    ASSERT_EQ(r1.error.code, error_code::none) << r1.error.message;
    EXPECT_EQ(r1.base_offset, 0);
    EXPECT_EQ(r1.last_offset, 2);
    auto b2 = batch(2, now, record::compression::lz4);
    auto r2 = produce(b2);
    ASSERT_EQ(r2.error.code, error_code::none) << r2.error.message;
    EXPECT_EQ(r2.base_offset, 3);
    // The bytes were stamped in place: base offset and partition leader epoch.
    auto h = record::decode_batch_header(b2.data());
    EXPECT_EQ(h.base_offset, 3);
    EXPECT_EQ(h.partition_leader_epoch, 3);
    // A single-replica ISR: the high watermark follows the log end at once.
    EXPECT_EQ(_p->high_watermark(), 5);
}

// cluster/leadership_lease.h: a leader whose lease ran out answers a fetch
// above its log end NOT_LEADER_OR_FOLLOWER, not OFFSET_OUT_OF_RANGE (which
// would reset the consumer); what it holds is served as before.
TEST_F(partition_test, a_leader_without_its_lease_refuses_fetches_above_its_log_end) {
    auto b = batch(3, wall_clock_ms());
    ASSERT_EQ(produce(b).error.code, error_code::none);
    leadership_lease lease;
    _p->set_leadership_lease(&lease);
    auto fetch = [this](int64_t offset) {
        return _p->read(kafka_offset{offset}, 1 << 20, isolation_level::read_uncommitted, true,
                        leader_epoch{3});
    };
    // Not enforced (no heartbeat loop): Kafka's answer.
    EXPECT_EQ(fetch(7).error.code, error_code::offset_out_of_range);
    lease.enforce();
    lease.extend(leadership_lease::clock::now(), std::chrono::milliseconds(60000));
    EXPECT_EQ(fetch(7).error.code, error_code::offset_out_of_range);

    lease.revoke();
    const auto above = fetch(7);
    EXPECT_EQ(above.error.code, error_code::not_leader_or_follower);
    EXPECT_NE(above.error.message.find("broker.session.timeout.ms"), std::string::npos);
    const auto held = fetch(0);
    ASSERT_EQ(held.error.code, error_code::none);
    EXPECT_FALSE(held.records.empty());
    EXPECT_EQ(fetch(3).error.code, error_code::none);  // at the log end: waits, as before
    // Below the log start is no sign of another leader.
    ASSERT_TRUE(_p->delete_records(2, wall_clock_ms()));
    EXPECT_EQ(fetch(1).error.code, error_code::offset_out_of_range);
}

TEST_F(partition_test, fetch_returns_the_batches_from_an_offset) {
    auto now = wall_clock_ms();
    auto b1 = batch(3, now);
    auto b2 = batch(2, now);
    produce(b1);
    produce(b2);
    auto f = _p->read(kafka_offset{3}, 1 << 20, isolation_level::read_uncommitted, true,
                      leader_epoch{-1});
    ASSERT_EQ(f.error.code, error_code::none);
    EXPECT_EQ(f.high_watermark, 5);
    EXPECT_EQ(f.log_start_offset, 0);
    auto bytes = f.records.read();
    ASSERT_TRUE(bytes);
    ASSERT_EQ(bytes->size(), b2.size());
    EXPECT_EQ(record::decode_batch_header(bytes->data()).base_offset, 3);
    auto past = _p->read(kafka_offset{6}, 1 << 20, isolation_level::read_uncommitted, true,
                         leader_epoch{-1});
    EXPECT_EQ(past.error.code, error_code::offset_out_of_range);
    auto at_end = _p->read(kafka_offset{5}, 1 << 20, isolation_level::read_uncommitted, true,
                           leader_epoch{-1});
    EXPECT_EQ(at_end.error.code, error_code::none);
    EXPECT_TRUE(at_end.records.empty());
}

TEST_F(partition_test, fetch_checks_the_current_leader_epoch_kip_320) {
    EXPECT_EQ(
        _p->read(kafka_offset{0}, 100, isolation_level::read_uncommitted, true, leader_epoch{2})
            .error.code,
        error_code::fenced_leader_epoch);
    EXPECT_EQ(
        _p->read(kafka_offset{0}, 100, isolation_level::read_uncommitted, true, leader_epoch{4})
            .error.code,
        error_code::unknown_leader_epoch);
    EXPECT_EQ(
        _p->read(kafka_offset{0}, 100, isolation_level::read_uncommitted, true, leader_epoch{3})
            .error.code,
        error_code::none);
}

TEST_F(partition_test, list_offsets_earliest_latest_and_by_timestamp) {
    auto b1 = batch(2, 1000);
    auto b2 = batch(2, 2000);
    produce(b1);
    produce(b2);
    auto earliest = _p->list_offsets(-2, isolation_level::read_uncommitted, no_leader_epoch);
    EXPECT_EQ(earliest.offset, 0);
    auto latest = _p->list_offsets(-1, isolation_level::read_uncommitted, no_leader_epoch);
    EXPECT_EQ(latest.offset, 4);
    EXPECT_EQ(latest.leader_epoch, 3);
    auto by_ts = _p->list_offsets(1500, isolation_level::read_uncommitted, no_leader_epoch);
    EXPECT_EQ(by_ts.offset, 2);
    EXPECT_EQ(by_ts.timestamp, 2000);
    auto none = _p->list_offsets(5000, isolation_level::read_uncommitted, no_leader_epoch);
    EXPECT_EQ(none.offset, -1);
    auto max_ts = _p->list_offsets(-3, isolation_level::read_uncommitted, no_leader_epoch);
    EXPECT_EQ(max_ts.timestamp, 2000);
}

TEST_F(partition_test, corrupt_batch_is_refused_with_corrupt_message) {
    auto b = batch(1, wall_clock_ms());
    b.back() ^= 0xff;  // breaks the CRC
    auto r = produce(b);
    EXPECT_EQ(r.error.code, error_code::corrupt_message);
    EXPECT_EQ(_p->high_watermark(), 0);
}

TEST_F(partition_test, acks_all_needs_min_insync_replicas) {
    partition_config cfg;
    cfg.min_insync_replicas = 2;
    _p->update_config(cfg);
    auto b = batch(1, wall_clock_ms());
    EXPECT_EQ(produce(b, -1).error.code, error_code::not_enough_replicas);
    auto b2 = batch(1, wall_clock_ms());
    EXPECT_EQ(produce(b2, 1).error.code, error_code::none);
}

TEST_F(partition_test, the_throttled_replica_lists_name_this_broker_or_all) {
    EXPECT_FALSE(_p->leader_throttled());
    EXPECT_FALSE(_p->follower_throttled());
    partition_config cfg;
    cfg.leader_throttled_replicas = {"1:2", "0:1"};  // partition 0 on broker 1: this one
    cfg.follower_throttled_replicas = {"0:2", "1:1"};
    _p->update_config(cfg);
    EXPECT_TRUE(_p->leader_throttled());
    EXPECT_FALSE(_p->follower_throttled());
    cfg.follower_throttled_replicas = {"*"};
    cfg.leader_throttled_replicas = {};
    _p->update_config(cfg);
    EXPECT_FALSE(_p->leader_throttled());
    EXPECT_TRUE(_p->follower_throttled());
    EXPECT_TRUE(_p->in_isr(node_id{1}));
    EXPECT_FALSE(_p->in_isr(node_id{2}));
}

TEST_F(partition_test, producer_id_expiration_follows_the_config) {
    partition_config cfg;
    cfg.producer_id_expiration_ms = 1234;
    _p->update_config(cfg);
    EXPECT_EQ(_p->log()->producer_state().config().producer_id_expiration_ms, 1234);
}

TEST_F(partition_test, latest_tiered_offset_is_none_without_tiered_storage) {
    auto b = batch(3, wall_clock_ms());
    ASSERT_EQ(produce(b).error.code, error_code::none);
    auto r = _p->list_offsets(-5, isolation_level::read_uncommitted, no_leader_epoch);  // KIP-1005
    EXPECT_EQ(r.error.code, error_code::none);
    EXPECT_EQ(r.offset, -1);
    EXPECT_EQ(r.timestamp, -1);
    // Earliest-local is the log start: all of the log is local.
    auto local = _p->list_offsets(-4, isolation_level::read_uncommitted, no_leader_epoch);
    EXPECT_EQ(local.offset, 0);
}

TEST_F(partition_test, a_follower_refuses_produce_and_fetch) {
    metadata::partition_registration reg;
    reg.leader = node_id{2};
    reg.leader_epoch = 4;
    reg.replicas = to_node_ids({1, 2});
    reg.isr = to_node_ids({1, 2});
    _p->update_registration(reg);
    auto b = batch(1, wall_clock_ms());
    EXPECT_EQ(produce(b).error.code, error_code::not_leader_or_follower);
    EXPECT_EQ(
        _p->read(kafka_offset{0}, 100, isolation_level::read_uncommitted, true, leader_epoch{-1})
            .error.code,
        error_code::not_leader_or_follower);
}

TEST_F(partition_test, delete_records_moves_the_log_start_offset) {
    auto b = batch(5, wall_clock_ms());
    produce(b);
    auto low = _p->delete_records(3, wall_clock_ms());
    ASSERT_TRUE(low);
    EXPECT_EQ(*low, 3);
    EXPECT_EQ(
        _p->read(kafka_offset{1}, 100, isolation_level::read_uncommitted, true, leader_epoch{-1})
            .error.code,
        error_code::offset_out_of_range);
    auto all = _p->delete_records(-1, wall_clock_ms());
    ASSERT_TRUE(all);
    EXPECT_EQ(*all, 5);
}

}  // namespace
}  // namespace samsa::cluster

namespace samsa::cluster {
namespace {

TEST_F(partition_test, end_offset_for_epoch_follows_the_leader_epoch_cache) {
    auto b1 = batch(2, wall_clock_ms());
    produce(b1);
    // A new leader epoch (5) starting at offset 2.
    metadata::partition_registration reg;
    reg.leader = node_id{1};
    reg.leader_epoch = 5;
    reg.replicas = to_node_ids({1});
    reg.isr = to_node_ids({1});
    _p->update_registration(reg);
    auto b2 = batch(3, wall_clock_ms());
    produce(b2);
    auto e3 = _p->end_offset_for_epoch(leader_epoch{-1}, leader_epoch{3});
    EXPECT_EQ(e3.error, error_code::none);
    EXPECT_EQ(e3.leader_epoch, 3);
    EXPECT_EQ(e3.end_offset, 2);
    auto e4 = _p->end_offset_for_epoch(leader_epoch{-1},
                                       leader_epoch{4});  // unknown epoch: the largest below it
    EXPECT_EQ(e4.leader_epoch, 3);
    EXPECT_EQ(e4.end_offset, 2);
    auto e5 = _p->end_offset_for_epoch(leader_epoch{5}, leader_epoch{5});
    EXPECT_EQ(e5.leader_epoch, 5);
    EXPECT_EQ(e5.end_offset, 5);
    EXPECT_EQ(_p->end_offset_for_epoch(leader_epoch{4}, leader_epoch{5}).error,
              error_code::fenced_leader_epoch);
}

}  // namespace
}  // namespace samsa::cluster
