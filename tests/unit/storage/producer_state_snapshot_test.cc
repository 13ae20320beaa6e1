// The `.snapshot` format (docs/formats/producer_snapshot.md): Kafka's bytes,
// round trips, Samsa's several-entries-per-producer history, corruption.
#include "storage/producer_state_snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/crc32c.h"
#include "storage/file_util.h"
#include "storage/temp_dir.h"

namespace samsa::storage {
namespace {

using testing::temp_dir;

producer_state_entry one_batch_producer() {
    producer_state_entry e;
    e.producer_id = 1000;
    e.producer_epoch = 0;
    e.add_batch(0, 4, 14, 4, 1700000000000);
    return e;
}

TEST(producer_snapshot, bytes_are_kafkas_layout) {
    producer_map m{{1000, one_batch_producer()}};
    bytes b = encode_producer_snapshot(m);
    // The worked example of docs/formats/producer_snapshot.md.
    const bytes body = {
        0x00, 0x00, 0x00, 0x01,                          // 1 entry
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,  // producer_id 1000
        0x00, 0x00,                                      // epoch 0
        0x00, 0x00, 0x00, 0x04,                          // last_sequence 4
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0e,  // last_offset 14
        0x00, 0x00, 0x00, 0x04,                          // offset_delta 4
        0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00,  // timestamp 1700000000000
        0xff, 0xff, 0xff, 0xff,                          // coordinator_epoch -1
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // no open transaction
    };
    ASSERT_EQ(b.size(), 2 + 4 + body.size());
    EXPECT_EQ(b[0], 0x00);
    EXPECT_EQ(b[1], 0x01);  // version 1
    EXPECT_EQ(bytes(b.begin() + 6, b.end()), body);
    EXPECT_EQ(load_be32(b.data() + 2), crc32c(body.data(), body.size()));
}

TEST(producer_snapshot, round_trip_keeps_the_whole_state) {
    producer_map m;
    auto a = one_batch_producer();
    for (int i = 1; i < 7; ++i) {
        a.add_batch(0, 4 + 3 * i, 14 + 10 * i, 2, 1700000000000 + i);
    }
    m[a.producer_id] = a;
    producer_state_entry txn;
    txn.producer_id = 7;
    txn.producer_epoch = 12;
    txn.coordinator_epoch = 3;
    txn.add_batch(12, 0, 100, 0, 5);
    txn.current_txn_first_offset = 100;
    m[7] = txn;
    producer_state_entry marker_only;  // its last entry was a transaction marker
    marker_only.producer_id = 9;
    marker_only.producer_epoch = 2;
    marker_only.coordinator_epoch = 8;
    marker_only.last_timestamp = 77;
    m[9] = marker_only;
    bytes b = encode_producer_snapshot(m);
    // One entry per retained batch: 5 + 1 + 1.
    EXPECT_EQ(load_be32(b.data() + 6), 7u);
    auto back = decode_producer_snapshot(b);
    ASSERT_TRUE(back) << back.err().message;
    EXPECT_EQ(*back, m);
    EXPECT_EQ(back->at(1000).batches.size(), max_retained_batches);
}

TEST(producer_snapshot, a_kafka_file_with_one_entry_per_producer_gives_one_batch) {
    // What Kafka writes for a producer with five batches: only the last.
    producer_map kafka{{1000, one_batch_producer()}};
    auto back = decode_producer_snapshot(encode_producer_snapshot(kafka));
    ASSERT_TRUE(back);
    ASSERT_EQ(back->at(1000).batches.size(), 1u);
    EXPECT_EQ(back->at(1000).batches[0].first_seq(), 0);
    EXPECT_EQ(back->at(1000).batches[0].first_offset(), 10);
}

TEST(producer_snapshot, empty_state_round_trips) {
    bytes b = encode_producer_snapshot({});
    EXPECT_EQ(b.size(), producer_snapshot_header_size);
    auto back = decode_producer_snapshot(b);
    ASSERT_TRUE(back);
    EXPECT_TRUE(back->empty());
}

TEST(producer_snapshot, damage_is_corrupt_message) {
    producer_map m{{1000, one_batch_producer()}};
    const bytes good = encode_producer_snapshot(m);
    auto expect_corrupt = [](const bytes& b) {
        auto r = decode_producer_snapshot(b);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.err().code, error_code::corrupt_message);
    };
    bytes flipped = good;
    flipped[20] ^= 1;
    expect_corrupt(flipped);
    bytes version = good;
    version[1] = 2;
    expect_corrupt(version);
    expect_corrupt(bytes(good.begin(), good.end() - 1));
    expect_corrupt(bytes(good.begin(), good.begin() + 5));
    bytes extra = good;
    extra.push_back(0);
    expect_corrupt(extra);
    // A count that lies, with a CRC that matches.
    bytes lying = good;
    store_be32(lying.data() + 6, 2);
    store_be32(lying.data() + 2, crc32c(lying.data() + 6, lying.size() - 6));
    expect_corrupt(lying);
}

TEST(producer_snapshot, files_are_named_by_offset_and_written_whole) {
    temp_dir dir;
    producer_map m{{1000, one_batch_producer()}};
    auto path = write_producer_snapshot(dir.path(), 170410, m, true);
    ASSERT_TRUE(path) << path.err().message;
    EXPECT_EQ(*path, dir.file("00000000000000170410.snapshot"));
    EXPECT_FALSE(std::filesystem::exists(*path + ".tmp"));
    auto back = read_producer_snapshot(*path);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, m);
    EXPECT_EQ(parse_producer_snapshot_file_name("00000000000000170410.snapshot"), 170410);
    EXPECT_EQ(parse_producer_snapshot_file_name("00000000000000170410.log"), std::nullopt);
    EXPECT_EQ(parse_producer_snapshot_file_name("00000000000000170410.snapshot.tmp"), std::nullopt);
    auto missing = read_producer_snapshot(dir.file("nope.snapshot"));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.err().code, error_code::kafka_storage_error);
}

}  // namespace
}  // namespace samsa::storage
