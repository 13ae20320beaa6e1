// Bytes written by a real Kafka client (kafkajs 2.2.4's own encoders for record
// batch v2 and message sets v0/v1), captured once and embedded here, so the
// room is checked against an implementation other than itself.
#include <gtest/gtest.h>

#include <string>

#include "batch_test_util.h"
#include "record/batch_validator.h"
#include "record/legacy_message_set.h"

namespace samsa::record {
namespace {

constexpr int64_t ts = 1700000000000;

bytes from_hex(std::string_view hex) {
    bytes out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        out.push_back(uint8_t(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    }
    return out;
}

// Two records: "key1" -> "value1" with header h=v at ts, then null -> "value2"
// at ts + 5. kafkajs writes partition leader epoch 0, producer epoch 0 and base
// sequence 0 even without idempotence.
const bytes kafkajs_v2_plain = from_hex(
    "0000000000000000000000530000000002d92cae300000000000010000018bcfe568000000018bcfe56805ff"
    "ffffffffffffff0000000000000000000228000000086b6579310c76616c756531020268027618000a02010c"
    "76616c75653200");
const bytes kafkajs_v2_gzip = from_hex(
    "00000000000000000000006300000000021fddb1740001000000010000018bcfe568000000018bcfe56805ff"
    "ffffffffffffff000000000000000000021f8b0800000000000003d3606060e0c84ead34e4294bcc294d3564"
    "62ca602a9360e062628408183100005090002a22000000");
// "k0" -> "v0" at ts, null -> "v1" at ts + 1; uncompressed entries at offset -1.
const bytes kafkajs_v0_plain = from_hex(
    "ffffffffffffffff000000128697724c0000000000026b30000000027630ffffffffffffffff000000104c9f"
    "5bc20000ffffffff000000027631");
const bytes kafkajs_v1_plain = from_hex(
    "ffffffffffffffff0000001a74aa514001000000018bcfe56800000000026b30000000027630ffffffffffff"
    "ffff00000018abdbdf3b01000000018bcfe56801ffffffff000000027631");
// The same two messages in a gzip wrapper (inner offsets 0 and 1).
const bytes kafkajs_v1_gzip = from_hex(
    "0000000000000000000000586ad5553a01010000018bcfe56800ffffffff000000421f8b0800000000000003"
    "63608003a99255810e8c0c0c0c8cdde79f66804498b20d406499015405485262f5edfbd670558cffffffff0f"
    "566308007d546e9f4a000000");

validation_options client() {
    validation_options o;
    o.now_ms = ts;
    return o;
}

TEST(client_bytes, builder_reproduces_a_kafkajs_batch_byte_for_byte) {
    batch_options o;
    o.partition_leader_epoch = 0;
    o.producer_epoch = 0;
    o.base_sequence = 0;
    record_header h{"h", as_bytes_view("v")};
    batch_builder b(o);
    b.add(ts, as_bytes_view("key1"), as_bytes_view("value1"), std::span(&h, 1));
    b.add(ts + 5, std::nullopt, as_bytes_view("value2"));
    auto built = b.build();
    ASSERT_TRUE(built);
    EXPECT_EQ(*built, kafkajs_v2_plain);
}

TEST(client_bytes, validates_and_reads_kafkajs_v2_batches) {
    for (const bytes* batch : {&kafkajs_v2_plain, &kafkajs_v2_gzip}) {
        EXPECT_TRUE(check_batch_integrity(*batch));
        auto v = validate_batch(*batch, client());
        ASSERT_TRUE(v.ok()) << v.error.message;
        EXPECT_EQ(v.max_timestamp, ts + 5);
        EXPECT_EQ(v.offset_delta_of_max_timestamp, 1);
        auto recs = test::read_all(*batch);
        ASSERT_EQ(recs.size(), 2u);
        EXPECT_EQ(recs[0].key, "key1");
        EXPECT_EQ(recs[0].value, "value1");
        ASSERT_EQ(recs[0].headers.size(), 1u);
        EXPECT_EQ(recs[0].headers[0].first, "h");
        EXPECT_EQ(recs[0].headers[0].second, "v");
        EXPECT_EQ(recs[1].key, std::nullopt);
        EXPECT_EQ(recs[1].offset, 1);
        EXPECT_EQ(recs[1].timestamp, ts + 5);
    }
}

TEST(client_bytes, legacy_encoder_reproduces_kafkajs_message_sets) {
    for (int8_t magic : {int8_t(0), int8_t(1)}) {
        bytes out;
        encode_legacy_message(out, magic, -1, 0, ts, as_bytes_view("k0"), as_bytes_view("v0"));
        encode_legacy_message(out, magic, -1, 0, ts + 1, std::nullopt, as_bytes_view("v1"));
        EXPECT_EQ(out, magic == 0 ? kafkajs_v0_plain : kafkajs_v1_plain) << int(magic);
    }
}

TEST(client_bytes, parses_and_converts_kafkajs_message_sets) {
    for (const bytes* in : {&kafkajs_v0_plain, &kafkajs_v1_plain, &kafkajs_v1_gzip}) {
        auto set = legacy_message_set::parse(*in, client());
        ASSERT_TRUE(set) << set.err().message;
        ASSERT_EQ(set->messages().size(), 2u);
        EXPECT_EQ(test::str(set->messages()[0].key), "k0");
        EXPECT_EQ(test::str(set->messages()[1].value), "v1");
        auto batch =
            convert_to_v2(*set, set->source_compression(), timestamp_type::create_time, ts);
        ASSERT_TRUE(batch);
        EXPECT_TRUE(validate_batch(*batch, client()).ok());
    }
    auto gz = legacy_message_set::parse(kafkajs_v1_gzip, client());
    ASSERT_TRUE(gz);
    EXPECT_EQ(gz->source_compression(), compression::gzip);
    EXPECT_EQ(gz->messages()[1].timestamp, ts + 1);
}

}  // namespace
}  // namespace samsa::record
