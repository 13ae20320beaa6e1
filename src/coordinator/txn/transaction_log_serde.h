#pragma once
// The records of __transaction_state, in Kafka's format:
//
//   key    int16 version 0, TransactionLogKey: transactional_id
//   value  int16 version 0, TransactionLogValue: producer_id, producer_epoch,
//          transaction_timeout_ms, transaction_status (txn_state),
//          transaction_partitions (topic, partition ids), last update and
//          start timestamps. Version 1 (flexible, with tagged previous/next
//          producer ids and the client's transaction version) is read too.
//   A null value is a tombstone: the transactional id expired.
#include <optional>
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "coordinator/txn/transaction_metadata.h"

namespace samsa::coordinator::txn {

inline constexpr int16_t transaction_log_key_version = 0;
inline constexpr int16_t transaction_log_value_version = 0;

bytes encode_transaction_log_key(const std::string& transactional_id);
bytes encode_transaction_log_value(const transaction_metadata& m);

// CORRUPT_MESSAGE when the bytes do not parse; a key of a version Kafka does
// not define is UNSUPPORTED_VERSION (the loader skips it).
result<std::string> decode_transaction_log_key(bytes_view key);
// The metadata a value describes (transactional_id left for the caller).
result<transaction_metadata> decode_transaction_log_value(bytes_view value);

}  // namespace samsa::coordinator::txn
