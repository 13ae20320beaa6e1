#include "coordinator/group/offsets_loader.h"

#include <gtest/gtest.h>

#include "coordinator/group/offsets_record_serde.h"
#include "record/batch_builder.h"
#include "record/control_record.h"

namespace samsa::coordinator {
namespace {

struct kv {
    bytes key;
    std::optional<bytes> value;
};

bytes batch(const std::vector<kv>& records, int64_t base_offset = 0, int64_t producer_id = -1) {
    record::batch_options o;
    o.base_offset = base_offset;
    if (producer_id >= 0) {
        o.producer_id = producer_id;
        o.producer_epoch = 0;
        o.base_sequence = 0;
        o.transactional = true;
    }
    record::batch_builder b(o);
    for (const auto& r : records) {
        std::optional<bytes_view> v;
        if (r.value) {
            v = bytes_view(*r.value);
        }
        b.add(1000, bytes_view(r.key), v);
    }
    auto out = b.build();
    EXPECT_TRUE(out);
    return *out;
}

kv commit(const std::string& group, const std::string& topic, int32_t p, int64_t offset) {
    return {encode_offset_commit_key(group, {topic, p}),
            encode_offset_commit_value({offset, -1, "", 1000, std::nullopt})};
}

kv commit_tombstone(const std::string& group, const std::string& topic, int32_t p) {
    return {encode_offset_commit_key(group, {topic, p}), std::nullopt};
}

kv group_record(classic_group& g) {
    return {encode_group_metadata_key(g.group_id()), encode_group_metadata_value(g, {})};
}

const classic_group* find(const std::vector<std::unique_ptr<classic_group>>& groups,
                          const std::string& id) {
    for (const auto& g : groups) {
        if (g->group_id() == id) {
            return g.get();
        }
    }
    return nullptr;
}

TEST(offsets_loader, the_last_commit_of_a_key_wins_and_tombstones_remove) {
    offsets_loader l;
    ASSERT_TRUE(l.apply_batch(batch({commit("g", "t", 0, 5), commit("g", "t", 1, 6)}, 0)));
    ASSERT_TRUE(l.apply_batch(batch({commit("g", "t", 0, 9), commit_tombstone("g", "t", 1)}, 2)));
    auto groups = l.finish(0);
    const auto* g = find(groups, "g");
    ASSERT_NE(g, nullptr);
    // Offsets without group metadata: a simple (offsets-only) group.
    EXPECT_TRUE(g->is(group_state::empty));
    EXPECT_EQ(g->protocol_type(), std::nullopt);
    ASSERT_NE(g->offsets().get({"t", 0}), nullptr);
    EXPECT_EQ(g->offsets().get({"t", 0})->offset, 9);
    EXPECT_EQ(g->offsets().get({"t", 1}), nullptr);
    EXPECT_EQ(l.records_read(), 4u);
}

TEST(offsets_loader, group_metadata_restores_members_and_assignments) {
    classic_group src("g", group_state::empty, 0);
    src.transition_to(group_state::preparing_rebalance, 0);
    src.add(std::make_unique<group_member>("m1", std::nullopt, "c", "/h", 30000, 10000, "consumer",
                                           std::vector<member_protocol>{{"range", {1, 2}}}));
    src.init_next_generation(0);
    src.get("m1")->set_assignment({3, 4});
    offsets_loader l;
    ASSERT_TRUE(l.apply_batch(batch({group_record(src), commit("g", "t", 0, 1)})));
    auto groups = l.finish(0);
    const auto* g = find(groups, "g");
    ASSERT_NE(g, nullptr);
    EXPECT_TRUE(g->is(group_state::stable));
    EXPECT_EQ(g->generation_id(), 1);
    EXPECT_EQ(g->protocol_name(), "range");
    EXPECT_EQ(g->leader_id(), "m1");
    ASSERT_EQ(g->size(), 1u);
    const auto& m = *g->members().at("m1");
    EXPECT_EQ(m.assignment(), (bytes{3, 4}));
    ASSERT_NE(m.metadata("range"), nullptr);
    EXPECT_EQ(*m.metadata("range"), (bytes{1, 2}));
    EXPECT_EQ(m.session_timeout_ms(), 10000);
    EXPECT_EQ(g->offsets().size(), 1u);
}

TEST(offsets_loader, a_group_tombstone_removes_the_group_but_not_later_offsets) {
    classic_group src("gone", group_state::empty, 0);
    src.restore(2, std::string("consumer"), std::nullopt, std::nullopt, int64_t(0));
    offsets_loader l;
    ASSERT_TRUE(l.apply_batch(batch({group_record(src), commit("gone", "t", 0, 3)})));
    ASSERT_TRUE(l.apply_batch(batch(
        {{encode_group_metadata_key("gone"), std::nullopt}, commit_tombstone("gone", "t", 0)}, 2)));
    EXPECT_EQ(find(l.finish(0), "gone"), nullptr);
}

TEST(offsets_loader, transactional_commits_count_only_once_committed) {
    offsets_loader l;
    ASSERT_TRUE(l.apply_batch(batch({commit("g", "t", 0, 7)}, 0, /*producer_id=*/11)));
    ASSERT_TRUE(l.apply_batch(batch({commit("g", "t", 1, 8)}, 1, /*producer_id=*/12)));
    ASSERT_TRUE(l.apply_batch(record::build_end_txn_marker_batch(11, 0, {true, 0}, 1000)));
    ASSERT_TRUE(l.apply_batch(record::build_end_txn_marker_batch(12, 0, {false, 0}, 1000)));
    auto groups = l.finish(0);
    const auto* g = find(groups, "g");
    ASSERT_NE(g, nullptr);
    ASSERT_NE(g->offsets().get({"t", 0}), nullptr);
    EXPECT_EQ(g->offsets().get({"t", 0})->offset, 7);
    EXPECT_EQ(g->offsets().get({"t", 1}), nullptr);  // aborted
}

TEST(offsets_loader, records_of_other_group_types_and_garbage_are_skipped) {
    offsets_loader l;
    kv newer{{0, 11, 0, 1, 'x'}, bytes{0, 0}};  // ShareGroupMetadataKey (KIP-932)
    kv garbage{{0, 1, 0}, bytes{0}};            // a truncated OffsetCommitKey
    ASSERT_TRUE(l.apply_batch(batch({newer, garbage, commit("g", "t", 0, 1)})));
    EXPECT_EQ(l.records_skipped(), 1u);
    EXPECT_NE(find(l.finish(0), "g"), nullptr);
}

}  // namespace
}  // namespace samsa::coordinator
