// The cleaner on one log: what a cleaning keeps, where offsets land, and
// tombstones (docs/compaction.md).
#include <gtest/gtest.h>

#include "storage/compaction/compaction_fixture.h"

namespace samsa::storage::testing {
namespace {

using cleaner = compaction_fixture;

TEST_F(cleaner, keeps_the_latest_value_of_each_key_at_its_offset) {
    // The seeds' example: k1..k3 written over and over.
    std::map<std::string, int64_t> last_offset;
    for (int round = 0; round < 5; ++round) {
        for (const char* k : {"k1", "k2", "k3"}) {
            last_offset[k] = put(k, std::string(k) + "=v" + std::to_string(round));
        }
    }
    roll();
    auto out = clean();
    EXPECT_EQ(out.cleaned_up_to, 15);
    auto rs = read_all();
    ASSERT_EQ(rs.size(), 3u);
    for (size_t i = 0; i < rs.size(); ++i) {
        ASSERT_TRUE(rs[i].key);
        EXPECT_EQ(rs[i].offset, last_offset[*rs[i].key]);
        EXPECT_EQ(rs[i].value, *rs[i].key + "=v4");
        if (i > 0) {
            EXPECT_LT(rs[i - 1].offset, rs[i].offset);
        }
    }
    EXPECT_EQ(l->log_end_offset(), 15);  // offsets never move
}

TEST_F(cleaner, a_fetch_of_a_removed_offset_starts_at_the_next_record_kept) {
    for (int i = 0; i < 36; ++i) {
        put("f" + std::to_string(i), "filler");
    }
    EXPECT_EQ(put("a", "1"), 36);
    EXPECT_EQ(put("b", "1"), 37);
    EXPECT_EQ(put("c", "1"), 38);
    put("a", "2");
    put("b", "2");
    roll();
    clean();
    auto rs = read_all(36);
    ASSERT_FALSE(rs.empty());
    EXPECT_EQ(rs.front().offset, 38);
    EXPECT_EQ(rs.front().key, "c");
}

TEST_F(cleaner, keeps_a_tombstone_for_delete_retention_ms_after_its_first_cleaning) {
    put("gone", "v");
    del("gone");
    put("kept", "v");
    roll();
    auto first = clean();
    auto rs = latest(read_all());
    ASSERT_TRUE(rs.count("gone"));
    EXPECT_FALSE(rs["gone"].has_value());  // the tombstone, its older value removed

    // Still inside delete.retention.ms: the tombstone stays.
    put("other", "v");
    roll();
    now_ms += config.delete_retention_ms / 2;
    clean(first.cleaned_up_to);
    EXPECT_TRUE(latest(read_all()).count("gone"));

    now_ms += config.delete_retention_ms;
    put("another", "v");
    roll();
    auto last = clean();
    EXPECT_EQ(last.stats.tombstones_removed, 1);
    rs = latest(read_all());
    EXPECT_FALSE(rs.count("gone"));
    EXPECT_TRUE(rs.count("kept"));
}

TEST_F(cleaner, rebuilt_batches_keep_codec_timestamps_and_headers) {
    std::string hv = "header-value";
    std::vector<record::record_header> headers{{"h", as_bytes_view(hv)}};
    write({{"a", "1"}, {"b", "1"}, {"c", "1"}}, record::compression::lz4, headers);
    now_ms += 10;
    put("a", "2");
    roll();
    clean();
    auto segs = l->segments();
    ASSERT_FALSE(segs.empty());
    auto rs = read_all();
    ASSERT_EQ(rs.size(), 3u);
    EXPECT_EQ(rs[0].key, "b");
    EXPECT_EQ(rs[0].offset, 1);
    EXPECT_EQ(rs[0].timestamp, test_now_ms);
    ASSERT_EQ(rs[0].headers.size(), 1u);
    EXPECT_EQ(rs[0].headers[0].second, hv);
    EXPECT_EQ(rs[2].key, "a");
    EXPECT_EQ(rs[2].timestamp, test_now_ms + 10);
    // The rebuilt batch is still lz4.
    auto r = l->read(kafka_offset{0}, 1 << 20, std::nullopt, true);
    ASSERT_TRUE(r);
    auto data = r->records.read();
    ASSERT_TRUE(data);
    record::batch_iterator it(*data);
    auto first = it.next();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->header.compression(), record::compression::lz4);
    EXPECT_EQ(first->header.base_offset, 0);
    EXPECT_EQ(first->header.last_offset_delta, 2);
}

TEST_F(cleaner, records_without_a_key_are_dropped) {
    record::batch_builder b;
    std::string v = "no key";
    b.add(now_ms, std::nullopt, as_bytes_view(v));
    append(std::move(*b.build()));
    put("k", "v");
    roll();
    clean();
    auto rs = read_all();
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0].key, "k");
}

TEST_F(cleaner, never_touches_the_active_segment) {
    put("k", "1");
    put("k", "2");
    auto plan = l->plan_cleaning(0, now_ms);
    EXPECT_TRUE(plan.segments.empty());
    EXPECT_EQ(read_all().size(), 2u);
}

TEST_F(cleaner, an_unchanged_segment_is_not_rewritten) {
    put("a", "1");
    put("b", "1");
    roll();
    auto first = clean();
    EXPECT_TRUE(first.segments.empty());  // nothing to remove: nothing swapped
    put("a", "2");
    roll();
    auto second = clean(first.cleaned_up_to);
    EXPECT_FALSE(second.segments.empty());
}

TEST_F(cleaner, small_segments_are_grouped_into_one) {
    for (int i = 0; i < 20; ++i) {
        put("k" + std::to_string(i % 4), "v" + std::to_string(i));
        roll();
    }
    EXPECT_EQ(l->segment_count(), 21u);
    clean();
    EXPECT_EQ(l->segment_count(), 2u);  // one cleaned segment, and the active one
    EXPECT_EQ(latest(read_all()).size(), 4u);
    reopen();
    EXPECT_EQ(latest(read_all()).size(), 4u);
    EXPECT_EQ(l->log_end_offset(), 20);
}

TEST_F(cleaner, min_compaction_lag_keeps_recent_segments_dirty) {
    config.min_compaction_lag_ms = 60000;
    l->update_config(config);
    put("k", "1");
    roll();
    put("k", "2");
    roll();
    auto plan = l->plan_cleaning(0, now_ms + 1000);
    EXPECT_TRUE(plan.segments.empty());
    plan = l->plan_cleaning(0, now_ms + 120000);
    EXPECT_EQ(plan.segments.size(), 2u);
}

TEST_F(cleaner, a_log_changed_since_the_plan_gets_nothing_swapped) {
    put("k", "1");
    put("k", "2");
    roll();
    put("k", "3");
    roll();
    auto plan = l->plan_cleaning(0, now_ms);
    compaction::offset_map map(1 << 20, 0.9);
    auto out = compaction::clean_log(plan, map, {now_ms, nullptr, nullptr});
    ASSERT_TRUE(out);
    ASSERT_TRUE(l->truncate_to(1, now_ms));  // a follower's truncation meanwhile
    auto swapped = l->swap_cleaned(*out, plan.generation, now_ms);
    ASSERT_TRUE(swapped);
    EXPECT_FALSE(*swapped);
    auto rs = read_all();
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0].value, "1");
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        EXPECT_EQ(e.path().string().find(".cleaned"), std::string::npos) << e.path();
    }
}

TEST_F(cleaner, the_offset_map_bounds_one_cleaning_and_the_next_goes_on) {
    for (int i = 0; i < 50; ++i) {
        put("k" + std::to_string(i), "1");
    }
    for (int i = 0; i < 50; ++i) {
        put("k" + std::to_string(i), "2");
    }
    roll();
    auto plan = l->plan_cleaning(0, now_ms);
    compaction::offset_map small(24 * 40, 0.9);  // holds 36 keys
    auto out = compaction::clean_log(plan, small, {now_ms, nullptr, nullptr});
    ASSERT_TRUE(out);
    EXPECT_EQ(out->cleaned_up_to, 36);
    ASSERT_TRUE(l->swap_cleaned(*out, plan.generation, now_ms));
    // Nothing above the map's end was dropped.
    EXPECT_EQ(read_all().size(), 100u);
    auto again = clean(out->cleaned_up_to);
    EXPECT_EQ(again.cleaned_up_to, 100);
    auto rs = latest(read_all());
    ASSERT_EQ(rs.size(), 50u);
    for (const auto& [k, v] : rs) {
        EXPECT_EQ(v, "2") << k;
    }
}

}  // namespace
}  // namespace samsa::storage::testing
