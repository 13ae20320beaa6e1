#include "coordinator/group/offsets_record_serde.h"

#include <gtest/gtest.h>

#include "coordinator/group/classic_group.h"

namespace samsa::coordinator {
namespace {

bytes b(std::initializer_list<int> v) {
    bytes out;
    for (int x : v) {
        out.push_back(uint8_t(x));
    }
    return out;
}

TEST(offsets_record_serde, offset_commit_key_is_version_1_group_topic_partition) {
    auto key = encode_offset_commit_key("g", {"t", 7});
    EXPECT_EQ(key, b({0, 1,           // key version 1: OffsetCommitKey
                      0, 1, 'g',      // group
                      0, 1, 't',      // topic
                      0, 0, 0, 7}));  // partition
    auto decoded = decode_offsets_record_key(key);
    ASSERT_TRUE(decoded);
    auto* k = std::get_if<offset_commit_key>(&*decoded);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->group, "g");
    EXPECT_EQ(k->tp, (storage::topic_partition{"t", 7}));
}

TEST(offsets_record_serde, key_version_0_is_an_offset_commit_too) {
    auto decoded = decode_offsets_record_key(b({0, 0, 0, 1, 'g', 0, 1, 't', 0, 0, 0, 1}));
    ASSERT_TRUE(decoded);
    EXPECT_NE(std::get_if<offset_commit_key>(&*decoded), nullptr);
}

TEST(offsets_record_serde, offset_commit_value_v3_layout) {
    offset_and_metadata om{42, 5, "m", 1000, std::nullopt};
    auto v = encode_offset_commit_value(om);
    EXPECT_EQ(v, b({0, 3,                               // value version 3
                    0, 0, 0,   0, 0, 0, 0,    42,       // offset
                    0, 0, 0,   5,                       // leader epoch
                    0, 1, 'm',                          // metadata
                    0, 0, 0,   0, 0, 0, 0x03, 0xe8}));  // commit timestamp 1000
    auto back = decode_offset_commit_value(v);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, om);
}

TEST(offsets_record_serde, offset_commit_value_with_expiry_is_v1) {
    offset_and_metadata om{1, -1, "", 1000, int64_t(2000)};
    auto v = encode_offset_commit_value(om);
    EXPECT_EQ(v, b({0, 1,                             // value version 1
                    0, 0, 0, 0, 0, 0, 0,    1,        // offset
                    0, 0,                             // metadata ""
                    0, 0, 0, 0, 0, 0, 0x03, 0xe8,     // commit timestamp
                    0, 0, 0, 0, 0, 0, 0x07, 0xd0}));  // expire timestamp 2000
    auto back = decode_offset_commit_value(v);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, om);
}

TEST(offsets_record_serde, older_and_newer_offset_commit_values_decode) {
    // v0: offset, metadata, commit timestamp (no leader epoch).
    auto v0 =
        decode_offset_commit_value(b({0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
    ASSERT_TRUE(v0);
    EXPECT_EQ(v0->offset, 9);
    EXPECT_EQ(v0->leader_epoch, -1);
    EXPECT_EQ(v0->commit_timestamp_ms, 1);
    // v4 (flexible): v3's fields as compact types and an empty tag section.
    auto v4 = decode_offset_commit_value(
        b({0, 4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 2, 2, 'x', 0, 0, 0, 0, 0, 0, 0, 1, 0}));
    ASSERT_TRUE(v4);
    EXPECT_EQ(v4->leader_epoch, 2);
    EXPECT_EQ(v4->metadata, "x");
    EXPECT_FALSE(decode_offset_commit_value(b({0, 3, 0, 0})));
}

TEST(offsets_record_serde, group_metadata_key_is_version_2) {
    auto key = encode_group_metadata_key("grp");
    EXPECT_EQ(key, b({0, 2, 0, 3, 'g', 'r', 'p'}));
    auto decoded = decode_offsets_record_key(key);
    ASSERT_TRUE(decoded);
    auto* k = std::get_if<group_metadata_key>(&*decoded);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->group, "grp");
}

TEST(offsets_record_serde, newer_group_type_keys_are_reported_unknown) {
    auto decoded = decode_offsets_record_key(b({0, 3, 0, 1, 'g'}));
    ASSERT_TRUE(decoded);
    auto* k = std::get_if<unknown_key>(&*decoded);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->version, 3);
}

TEST(offsets_record_serde, group_metadata_value_v3_layout) {
    classic_group g("g", group_state::empty, 0);
    g.transition_to(group_state::preparing_rebalance, 0);
    g.add(std::make_unique<group_member>("m", std::string("i"), "c", "/h", 7, 6, "consumer",
                                         std::vector<member_protocol>{{"range", b({0xAA})}}));
    g.init_next_generation(0x10);
    auto v = encode_group_metadata_value(g, {{"m", b({0xBB})}});
    EXPECT_EQ(v, b({0, 3,                                            // value version 3
                    0, 8, 'c', 'o', 'n',  's', 'u', 'm',  'e', 'r',  // protocol type
                    0, 0, 0,   1,                                    // generation
                    0, 5, 'r', 'a', 'n',  'g', 'e',                  // protocol
                    0, 1, 'm',                                       // leader
                    0, 0, 0,   0,   0,    0,   0,   0x10,            // current state timestamp
                    0, 0, 0,   1,                                    // one member:
                    0, 1, 'm',                                       //   member id
                    0, 1, 'i',                                       //   group instance id
                    0, 1, 'c',                                       //   client id
                    0, 2, '/', 'h',                                  //   client host
                    0, 0, 0,   7,                                    //   rebalance timeout
                    0, 0, 0,   6,                                    //   session timeout
                    0, 0, 0,   1,   0xAA,                            //   subscription
                    0, 0, 0,   1,   0xBB}));                         //   assignment
    auto back = decode_group_metadata_value(v);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->generation, 1);
    EXPECT_EQ(back->protocol, "range");
    ASSERT_EQ(back->members.size(), 1u);
    EXPECT_EQ(back->members[0].group_instance_id, "i");
    EXPECT_EQ(back->members[0].assignment, b({0xBB}));
}

TEST(offsets_record_serde, an_empty_group_has_null_protocol_and_leader) {
    classic_group g("g", group_state::empty, 5);
    g.restore(4, std::string("consumer"), std::nullopt, std::nullopt, int64_t(5));
    auto v = encode_group_metadata_value(g, {});
    EXPECT_EQ(v, b({0,    3,    0, 8, 'c',  'o',  'n', 's', 'u', 'm', 'e', 'r',
                    0,    0,    0, 4, 0xff, 0xff,  // null protocol
                    0xff, 0xff,                    // null leader
                    0,    0,    0, 0, 0,    0,    0,   5,   0,   0,   0,   0}));
}

}  // namespace
}  // namespace samsa::coordinator
