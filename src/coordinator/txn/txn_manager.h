#pragma once
// txn_manager: the transaction coordinator of one reactor shard (Kafka's
// TransactionCoordinator + TransactionStateManager): the transactional ids
// of every __transaction_state partition this shard leads, on the
// coordinator runtime, and the requests that move them through their states
// (transaction_metadata.h):
//
//   InitProducerId    Empty/Complete* -> Empty with the epoch bumped (a new
//                     producer id when the epoch is exhausted); Ongoing ->
//                     aborted first under a bumped epoch (fencing the old
//                     producer), answered CONCURRENT_TRANSACTIONS meanwhile.
//   AddPartitionsToTxn / AddOffsetsToTxn   -> Ongoing with the partitions.
//   EndTxn            Ongoing -> Prepare{Commit,Abort}, answered once that is
//                     replicated; then the markers (txn_marker_channel), then
//                     Complete{Commit,Abort}.
//   timeout           an Ongoing transaction older than its timeout is
//                     aborted under a bumped epoch, checked every
//                     transaction.abort.timed.out.transaction.cleanup.interval.ms.
//
// A partition that loads with transactions in Prepare* finishes them (the
// markers are written again: a partition ignores nothing, and a repeated
// marker is harmless).
//
// Threading: one per reactor shard, every call on that shard's thread;
// callbacks run there too.
#include <asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/partition.h"
#include "cluster/purgatory/purgatory_driver.h"
#include "coordinator/common/coordinator_runtime.h"
#include "coordinator/txn/transaction_metadata.h"
#include "coordinator/txn/txn_coordinator_shard.h"
#include "coordinator/txn/txn_marker_channel.h"

namespace samsa::coordinator::txn {

inline constexpr const char* transaction_state_topic = "__transaction_state";

struct txn_config {
    int32_t num_partitions = 50;              // transaction.state.log.num.partitions
    int32_t max_timeout_ms = 900000;          // transaction.max.timeout.ms
    int32_t abort_check_interval_ms = 10000;  // ...abort.timed.out.transaction.cleanup.interval.ms
    // transaction.remove.expired.transaction.cleanup.interval.ms, and
    // transactional.id.expiration.ms: an id whose last transaction ended
    // that long ago is removed (a tombstone in the log).
    int32_t expiration_check_interval_ms = 3600000;
    int64_t id_expiration_ms = 604800000;
    int32_t append_timeout_ms = 5000;  // how long a state write may wait for the ISR
};

// The __transaction_state partition of a transactional id (Kafka's
// abs(hashCode) % partitions, with Java's String.hashCode).
int32_t transaction_partition_for(const std::string& transactional_id, int32_t num_partitions);

struct init_pid_result {
    error_code error = error_code::none;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    // The id is new to this coordinator (or its epoch is exhausted): call
    // again with a freshly allocated producer id.
    bool needs_producer_id = false;
};

struct txn_listing {
    std::string transactional_id;
    int64_t producer_id = -1;
    txn_state state = txn_state::empty;
    int64_t txn_start_ms = -1;
};

class txn_manager {
  public:
    using clock_fn = std::function<int64_t()>;
    using callback = std::function<void(error_code)>;

    txn_manager(txn_config config, cluster::purgatory_driver& driver, clock_fn wall_clock,
                std::unique_ptr<txn_marker_channel> markers);
    ~txn_manager();
    txn_manager(const txn_manager&) = delete;
    txn_manager& operator=(const txn_manager&) = delete;

    const txn_config& config() const { return _config; }
    coordinator_runtime& runtime() { return _runtime; }
    int32_t partition_for(const std::string& id) const {
        return transaction_partition_for(id, _config.num_partitions);
    }

    void on_elected(int32_t partition, cluster::partition* log);
    void on_resigned(int32_t partition);
    // NONE, COORDINATOR_LOAD_IN_PROGRESS or NOT_COORDINATOR for the id.
    error_code status_of(const std::string& id) const;

    // ---- requests
    // `fresh_producer_id`: set on the second call after needs_producer_id.
    void init_producer_id(const std::string& id, int32_t txn_timeout_ms,
                          int64_t expected_producer_id, int16_t expected_epoch,
                          std::optional<int64_t> fresh_producer_id,
                          std::function<void(init_pid_result)> cb);
    // verify_only (AddPartitionsToTxn v4+, KIP-890): NONE when the
    // transaction is ongoing and holds every partition, INVALID_TXN_STATE
    // otherwise; nothing is written.
    void add_partitions(const std::string& id, int64_t producer_id, int16_t epoch,
                        const std::vector<storage::topic_partition>& partitions, bool verify_only,
                        callback cb);
    void end_txn(const std::string& id, int64_t producer_id, int16_t epoch, bool commit,
                 callback cb);

    // ---- admin
    std::vector<txn_listing> list(const std::vector<txn_state>& states,
                                  const std::vector<int64_t>& producer_ids) const;
    // The id's metadata (a copy), with NONE; else the status or
    // TRANSACTIONAL_ID_NOT_FOUND.
    std::pair<error_code, transaction_metadata> describe(const std::string& id) const;
    bool any_loading() const { return _runtime.any_loading(); }

    // Runs the timeout check now (tests; the timer calls it).
    void abort_timed_out_transactions();
    // Removes expired transactional ids now (tests; the timer calls it).
    void remove_expired_transactional_ids();

  private:
    txn_coordinator_shard* shard_of(int32_t partition) const;
    // Writes `next` as the id's new state; applied once replicated, then
    // cb(NONE); the append's error otherwise (as Kafka maps it).
    void write_state(int32_t partition, transaction_metadata next, callback cb);
    // Prepare* is in the log: write the markers, then Complete*.
    void complete_transaction(int32_t partition, const std::string& id);
    // The markers are written: Complete*, retried every
    // complete_retry_backoff_ms while the ISR does not take it.
    void write_complete(int32_t partition, const std::string& id, int64_t pid, int16_t epoch,
                        txn_state prepared, int attempt);
    static constexpr int complete_retry_backoff_ms = 500;
    // Ongoing -> PrepareAbort under a bumped epoch (timeout, new producer).
    void fence_and_abort(int32_t partition, transaction_metadata& m);
    void on_loaded(txn_coordinator_shard& s);
    // Runs `task` every `interval_ms` on `timer` while the manager lives.
    void run_every(asio::steady_timer& timer, int32_t interval_ms, void (txn_manager::*task)());

    txn_config _config;
    clock_fn _wall_clock;
    coordinator_runtime _runtime;
    std::unique_ptr<txn_marker_channel> _markers;
    std::map<int32_t, cluster::partition*> _logs;  // for the coordinator epoch
    asio::steady_timer _abort_timer;
    asio::steady_timer _expiration_timer;
    std::shared_ptr<char> _alive = std::make_shared<char>();
};

}  // namespace samsa::coordinator::txn
