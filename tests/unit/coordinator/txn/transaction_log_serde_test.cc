// The records of __transaction_state (transaction_log_serde.h): keys and
// values round-trip in version 0, partitions are grouped by topic, a v1
// (flexible, tagged fields) value decodes, malformed bytes are CORRUPT_MESSAGE
// and a key of a version Kafka does not define UNSUPPORTED_VERSION; the state
// names are Kafka's.
#include "coordinator/txn/transaction_log_serde.h"

#include <gtest/gtest.h>

#include "coordinator/common/versioned_record.h"
#include "protocol/generated/transaction_log_key.h"
#include "protocol/generated/transaction_log_value.h"
#include "protocol/writer.h"

namespace samsa::coordinator::txn {
namespace {

transaction_metadata sample() {
    transaction_metadata m;
    m.producer_id = 4242;
    m.producer_epoch = 7;
    m.txn_timeout_ms = 30000;
    m.state = txn_state::ongoing;
    m.partitions = {{"orders", 0}, {"orders", 3}, {"audit", 1}};
    m.txn_start_ms = 1'700'000'000'000;
    m.txn_last_update_ms = 1'700'000'000'500;
    return m;
}

TEST(transaction_log_serde_test, key_round_trips) {
    auto key = encode_transaction_log_key("my-txn");
    auto id = decode_transaction_log_key(key);
    ASSERT_TRUE(id) << id.err().message;
    EXPECT_EQ(*id, "my-txn");
    // int16 version 0, then the string.
    ASSERT_GE(key.size(), 2u);
    EXPECT_EQ(key[0], 0);
    EXPECT_EQ(key[1], 0);
}

TEST(transaction_log_serde_test, value_round_trips) {
    const auto m = sample();
    auto v = decode_transaction_log_value(encode_transaction_log_value(m));
    ASSERT_TRUE(v) << v.err().message;
    EXPECT_EQ(v->producer_id, m.producer_id);
    EXPECT_EQ(v->producer_epoch, m.producer_epoch);
    EXPECT_EQ(v->txn_timeout_ms, m.txn_timeout_ms);
    EXPECT_EQ(v->state, m.state);
    EXPECT_EQ(v->partitions, m.partitions);
    EXPECT_EQ(v->txn_start_ms, m.txn_start_ms);
    EXPECT_EQ(v->txn_last_update_ms, m.txn_last_update_ms);
    EXPECT_TRUE(v->transactional_id.empty());  // the key's, left for the caller
}

TEST(transaction_log_serde_test, every_state_round_trips) {
    for (int s = 0; s <= 7; ++s) {
        auto m = sample();
        m.state = txn_state(s);
        auto v = decode_transaction_log_value(encode_transaction_log_value(m));
        ASSERT_TRUE(v) << v.err().message;
        EXPECT_EQ(v->state, txn_state(s));
    }
}

TEST(transaction_log_serde_test, partitions_are_grouped_by_topic) {
    auto bytes_v = encode_transaction_log_value(sample());
    protocol::reader r(bytes_v);
    const int16_t version = r.read_int16();
    EXPECT_EQ(version, 0);
    auto v = decode_rest<protocol::transaction_log_value>(r, version, "value");
    ASSERT_TRUE(v) << v.err().message;
    ASSERT_TRUE(v->transaction_partitions);
    ASSERT_EQ(v->transaction_partitions->size(), 2u);
    EXPECT_EQ((*v->transaction_partitions)[0].topic, "audit");
    EXPECT_EQ((*v->transaction_partitions)[0].partition_ids, (std::vector<int32_t>{1}));
    EXPECT_EQ((*v->transaction_partitions)[1].topic, "orders");
    EXPECT_EQ((*v->transaction_partitions)[1].partition_ids, (std::vector<int32_t>{0, 3}));
}

TEST(transaction_log_serde_test, empty_partitions_round_trip) {
    auto m = sample();
    m.state = txn_state::empty;
    m.partitions.clear();
    m.txn_start_ms = -1;
    auto v = decode_transaction_log_value(encode_transaction_log_value(m));
    ASSERT_TRUE(v) << v.err().message;
    EXPECT_TRUE(v->partitions.empty());
    EXPECT_EQ(v->txn_start_ms, -1);
}

TEST(transaction_log_serde_test, v1_flexible_value_decodes_with_tagged_fields) {
    protocol::transaction_log_value v;
    v.producer_id = 99;
    v.previous_producer_id = 98;
    v.next_producer_id = 100;
    v.producer_epoch = 3;
    v.transaction_timeout_ms = 1000;
    v.transaction_status = int8_t(txn_state::prepare_commit);
    auto& p = v.transaction_partitions->emplace_back();
    p.topic = "t";
    p.partition_ids = {2, 5};
    v.transaction_last_update_timestamp_ms = 20;
    v.transaction_start_timestamp_ms = 10;
    v.client_transaction_version = 2;
    auto m = decode_transaction_log_value(encode_versioned(v, 1));
    ASSERT_TRUE(m) << m.err().message;
    EXPECT_EQ(m->producer_id, 99);
    EXPECT_EQ(m->last_producer_id, 98);
    EXPECT_EQ(m->producer_epoch, 3);
    EXPECT_EQ(m->txn_timeout_ms, 1000);
    EXPECT_EQ(m->state, txn_state::prepare_commit);
    EXPECT_EQ(m->partitions, (std::set<storage::topic_partition>{{"t", 2}, {"t", 5}}));
    EXPECT_EQ(m->txn_last_update_ms, 20);
    EXPECT_EQ(m->txn_start_ms, 10);
}

// Kafka's TransactionLogValue v0 (0.11 on): ProducerId, ProducerEpoch,
// TransactionTimeoutMs, TransactionStatus, TransactionPartitions,
// TransactionLastUpdateTimestampMs, TransactionStartTimestampMs. The v1
// fields PreviousProducerId, NextProducerId and ClientTransactionVersion are
// tagged only ("taggedVersions": "1+" with no "versions": Kafka's generator
// takes the tagged versions), so they are not in v0.
bytes kafka_v0_value() {
    protocol::writer w;
    w.write_int16(0);
    w.write_int64(4242);   // ProducerId
    w.write_int16(7);      // ProducerEpoch
    w.write_int32(30000);  // TransactionTimeoutMs
    w.write_int8(1);       // TransactionStatus: Ongoing
    w.write_int32(1);      // TransactionPartitions
    w.write_string("orders");
    w.write_int32(1);
    w.write_int32(3);
    w.write_int64(1'700'000'000'500);  // TransactionLastUpdateTimestampMs
    w.write_int64(1'700'000'000'000);  // TransactionStartTimestampMs
    return std::move(w.buffer());
}

// A v0 value as Kafka writes it decodes.
TEST(transaction_log_serde_test, kafka_v0_value_decodes) {
    auto m = decode_transaction_log_value(kafka_v0_value());
    ASSERT_TRUE(m) << m.err().message;
    EXPECT_EQ(m->producer_id, 4242);
    EXPECT_EQ(m->producer_epoch, 7);
    EXPECT_EQ(m->state, txn_state::ongoing);
    EXPECT_EQ(m->partitions, (std::set<storage::topic_partition>{{"orders", 3}}));
    EXPECT_EQ(m->txn_start_ms, 1'700'000'000'000);
}

// And Samsa writes v0 in the same layout, byte for byte.
TEST(transaction_log_serde_test, v0_value_is_written_in_kafkas_layout) {
    transaction_metadata m;
    m.producer_id = 4242;
    m.producer_epoch = 7;
    m.txn_timeout_ms = 30000;
    m.state = txn_state::ongoing;
    m.partitions = {{"orders", 3}};
    m.txn_start_ms = 1'700'000'000'000;
    m.txn_last_update_ms = 1'700'000'000'500;
    EXPECT_EQ(encode_transaction_log_value(m), kafka_v0_value());
}

TEST(transaction_log_serde_test, truncated_value_is_corrupt_message) {
    auto v = encode_transaction_log_value(sample());
    v.resize(v.size() - 3);
    auto m = decode_transaction_log_value(v);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.err().code, error_code::corrupt_message);
}

TEST(transaction_log_serde_test, trailing_bytes_are_corrupt_message) {
    auto v = encode_transaction_log_value(sample());
    v.push_back(0);
    auto m = decode_transaction_log_value(v);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.err().code, error_code::corrupt_message);
}

TEST(transaction_log_serde_test, one_byte_is_corrupt_message) {
    const bytes one{0};
    auto k = decode_transaction_log_key(one);
    ASSERT_FALSE(k);
    EXPECT_EQ(k.err().code, error_code::corrupt_message);
    auto v = decode_transaction_log_value(one);
    ASSERT_FALSE(v);
    EXPECT_EQ(v.err().code, error_code::corrupt_message);
}

TEST(transaction_log_serde_test, truncated_key_is_corrupt_message) {
    auto key = encode_transaction_log_key("my-txn");
    key.pop_back();
    auto k = decode_transaction_log_key(key);
    ASSERT_FALSE(k);
    EXPECT_EQ(k.err().code, error_code::corrupt_message);
}

TEST(transaction_log_serde_test, unknown_value_version_is_corrupt_message) {
    auto v = encode_transaction_log_value(sample());
    v[0] = 0;
    v[1] = 9;
    auto m = decode_transaction_log_value(v);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.err().code, error_code::corrupt_message);
}

TEST(transaction_log_serde_test, unknown_status_is_corrupt_message) {
    protocol::transaction_log_value v;
    v.producer_id = 1;
    v.transaction_status = 8;
    auto m = decode_transaction_log_value(encode_versioned(v, 1));
    ASSERT_FALSE(m);
    EXPECT_EQ(m.err().code, error_code::corrupt_message);
}

TEST(transaction_log_serde_test, unknown_key_version_is_unsupported_version) {
    protocol::transaction_log_key k;
    k.transactional_id = "my-txn";
    protocol::writer w;
    w.write_int16(1);
    k.encode(w, 0);
    auto id = decode_transaction_log_key(w.buffer());
    ASSERT_FALSE(id);
    EXPECT_EQ(id.err().code, error_code::unsupported_version);
}

TEST(transaction_log_serde_test, state_names_are_kafkas_both_ways) {
    const std::pair<txn_state, const char*> names[] = {
        {txn_state::empty, "Empty"},
        {txn_state::ongoing, "Ongoing"},
        {txn_state::prepare_commit, "PrepareCommit"},
        {txn_state::prepare_abort, "PrepareAbort"},
        {txn_state::complete_commit, "CompleteCommit"},
        {txn_state::complete_abort, "CompleteAbort"},
        {txn_state::dead, "Dead"},
        {txn_state::prepare_epoch_fence, "PrepareEpochFence"},
    };
    for (const auto& [state, name] : names) {
        EXPECT_STREQ(txn_state_name(state), name);
        EXPECT_EQ(txn_state_from_name(name), state) << name;
    }
    // Case-sensitive, as Kafka's TransactionState.fromName.
    EXPECT_EQ(txn_state_from_name("ongoing"), std::nullopt);
    EXPECT_EQ(txn_state_from_name("ONGOING"), std::nullopt);
    EXPECT_EQ(txn_state_from_name(""), std::nullopt);
}

}  // namespace
}  // namespace samsa::coordinator::txn
