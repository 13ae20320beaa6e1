#pragma once
// transaction_metadata: what the transaction coordinator knows of one
// transactional id (Kafka's TransactionMetadata, KIP-98): its producer id and
// epoch, the transaction's state and partitions, and its timings. Stored as a
// TransactionLogValue in __transaction_state (transaction_log_serde.h).
//
// States and the moves between them (Kafka's TransactionState):
//
//   Empty ----AddPartitions----> Ongoing ---EndTxn(commit)--> PrepareCommit
//     ^                            |    \---EndTxn(abort)---> PrepareAbort
//     |                            |      (or timeout / a new InitProducerId:
//     |                            |       the epoch is bumped first)
//     |                      markers written to every partition
//     |                            v
//   CompleteCommit / CompleteAbort  (InitProducerId -> Empty, AddPartitions -> Ongoing)
//   Dead: the transactional id expired (transactional.id.expiration.ms).
//
// A state change is written to the log first and applied once replicated;
// while one is in flight (`pending`) other requests get CONCURRENT_TRANSACTIONS.
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "storage/topic_partition.h"

namespace samsa::coordinator::txn {

// The values are the TransactionStatus of TransactionLogValue.
enum class txn_state : int8_t {
    empty = 0,
    ongoing = 1,
    prepare_commit = 2,
    prepare_abort = 3,
    complete_commit = 4,
    complete_abort = 5,
    dead = 6,
    prepare_epoch_fence = 7,
};

// Kafka's names, as ListTransactions and DescribeTransactions spell them.
const char* txn_state_name(txn_state s);
// The state named (case-sensitive, Kafka's spelling), for ListTransactions filters.
std::optional<txn_state> txn_state_from_name(const std::string& name);

struct transaction_metadata {
    std::string transactional_id;
    int64_t producer_id = -1;
    int64_t last_producer_id = -1;  // before an epoch exhaustion gave a new id
    int16_t producer_epoch = -1;
    int16_t last_producer_epoch = -1;
    int32_t txn_timeout_ms = 60000;
    txn_state state = txn_state::empty;
    std::set<storage::topic_partition> partitions;
    int64_t txn_start_ms = -1;
    int64_t txn_last_update_ms = -1;

    // A write of a new state is in flight.
    bool pending = false;

    bool is_prepare() const {
        return state == txn_state::prepare_commit || state == txn_state::prepare_abort ||
               state == txn_state::prepare_epoch_fence;
    }
};

// Kafka's limit: an epoch at Short.MaxValue - 1 needs a new producer id.
inline constexpr int16_t max_producer_epoch = 32766;

}  // namespace samsa::coordinator::txn
