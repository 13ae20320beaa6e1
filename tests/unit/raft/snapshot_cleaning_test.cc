// Metadata log retention (metadata.max.retention.bytes/ms), as Kafka's
// KafkaMetadataLog.maybeClean: oldest snapshots go first, the log start moves
// to the next one, the newest always stays.
#include "raft/snapshot_cleaning.h"

#include <gtest/gtest.h>

#include "raft/memory_raft_log.h"
#include "raft/raft_batch_codec.h"
#include "raft_test_util.h"

namespace samsa::raft {
namespace {

using test::snapshot_data;

raft_offset o(int64_t v) {
    return raft_offset{v};
}
const raft_epoch e1{1};

// A log of 6 one-record batches (offsets 0-5) with snapshots at 2, 4 and 6,
// taken at 1,000, 5,000 and 9,000 ms.
struct cleaning_fixture : ::testing::Test {
    memory_raft_log log;
    void SetUp() override {
        for (int i = 0; i < 6; ++i) {
            ASSERT_TRUE(
                log.append_as_leader({bytes(100, uint8_t(i))}, e1, control_record_type::none));
        }
        ASSERT_TRUE(log.flush());
        ASSERT_TRUE(log.store_snapshot({{o(2), e1}, snapshot_data(1000, 50)}));
        ASSERT_TRUE(log.store_snapshot({{o(4), e1}, snapshot_data(5000, 50)}));
        ASSERT_TRUE(log.store_snapshot({{o(6), e1}, snapshot_data(9000, 50)}));
    }
    int64_t total_bytes() const {
        int64_t total = log.size_bytes();
        for (const auto& s : log.snapshot_infos()) {
            total += s.size_bytes;
        }
        return total;
    }
};

TEST(snapshot_header_timestamp, reads_the_header_and_nothing_else) {
    EXPECT_EQ(snapshot_header_timestamp(*snapshot_data(1234)), 1234);
    EXPECT_EQ(snapshot_header_timestamp(bytes{1, 2, 3}), std::nullopt);
    raft_batch data_batch{o(0), e1, control_record_type::none, {bytes{1}}};
    EXPECT_EQ(snapshot_header_timestamp(*encode_record_batch(data_batch, 0)), std::nullopt);
}

TEST_F(cleaning_fixture, nothing_goes_within_the_limits_or_with_both_off) {
    EXPECT_FALSE(*clean_snapshots(log, {-1, -1}, 1'000'000));
    EXPECT_FALSE(*clean_snapshots(log, {total_bytes(), 10'000}, 10'000));
    EXPECT_EQ(log.start_offset(), o(0));
    EXPECT_EQ(log.snapshot_infos().size(), 3u);
}

TEST_F(cleaning_fixture, the_size_rule_drops_the_oldest_until_within) {
    const int64_t oldest = log.snapshot_infos()[0].size_bytes;
    const int64_t two_batches = log.size_bytes() / 3;
    // One snapshot and the two batches below the next one over: one step.
    ASSERT_TRUE(*clean_snapshots(log, {total_bytes() - oldest - two_batches, -1}, 0));
    EXPECT_EQ(log.start_offset(), o(4));
    ASSERT_EQ(log.snapshot_infos().size(), 2u);
    EXPECT_EQ(log.snapshot_infos()[0].id.offset, o(4));
    // Nothing fits: everything but the newest snapshot goes.
    ASSERT_TRUE(*clean_snapshots(log, {0, -1}, 0));
    EXPECT_EQ(log.start_offset(), o(6));
    ASSERT_EQ(log.snapshot_infos().size(), 1u);
    EXPECT_FALSE(*clean_snapshots(log, {0, -1}, 0));  // the newest stays
}

TEST_F(cleaning_fixture, the_age_rule_stops_at_the_first_young_enough) {
    // At 10,000 ms with 6,000 ms kept: the 1,000 ms snapshot goes, the
    // 5,000 ms one stays, and the log now starts at 4.
    ASSERT_TRUE(*clean_snapshots(log, {-1, 6000}, 10'000));
    EXPECT_EQ(log.start_offset(), o(4));
    EXPECT_EQ(log.snapshot_infos().size(), 2u);
    // Everything is old: all but the newest go.
    ASSERT_TRUE(*clean_snapshots(log, {-1, 0}, 10'000));
    EXPECT_EQ(log.start_offset(), o(6));
    EXPECT_EQ(log.snapshot_infos().size(), 1u);
}

TEST(snapshot_cleaning, a_snapshot_without_a_header_is_never_too_old) {
    memory_raft_log log;
    for (int i = 0; i < 4; ++i) {
        ASSERT_TRUE(log.append_as_leader({bytes{uint8_t(i)}}, e1, control_record_type::none));
    }
    ASSERT_TRUE(log.store_snapshot({{o(2), e1}, std::make_shared<const bytes>(bytes{7})}));
    ASSERT_TRUE(log.store_snapshot({{o(4), e1}, snapshot_data(0)}));
    EXPECT_FALSE(*clean_snapshots(log, {-1, 0}, 1'000'000));
    EXPECT_EQ(log.start_offset(), o(0));
}

}  // namespace
}  // namespace samsa::raft
