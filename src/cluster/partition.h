#pragma once
// partition: one partition replica hosted by this broker (Kafka's Partition):
// its log, its place in the replica set (leader, epoch, replicas, ISR) as the
// metadata image says, and the operations clients run against it.
//
// Owned by one shard (docs/architecture.md, "Threads"): every method runs on that shard's thread,
// so nothing here locks.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cluster/leadership_lease.h"
#include "cluster/partition_config.h"
#include "common/kafka_types.h"
#include "common/result.h"
#include "common/uuid.h"
#include "metadata/metadata_image.h"
#include "record/batch_validator.h"
#include "storage/log.h"
#include "storage/topic_partition.h"

namespace samsa::cluster {

enum class isolation_level : int8_t { read_uncommitted = 0, read_committed = 1 };

struct produce_outcome {
    samsa::error error{error_code::none};
    std::vector<record::record_error> record_errors;
    int64_t base_offset = -1;
    int64_t last_offset = -1;
    int64_t log_append_time_ms = -1;  // -1 unless the topic uses LogAppendTime
    int64_t log_start_offset = -1;
};

struct fetch_outcome {
    samsa::error error{error_code::none};
    // A follower's fetch whose (offset, last fetched epoch) is not on the
    // leader's log: the largest epoch <= its last one and where it ends there
    // (KIP-595's diverging epoch, which Kafka uses for data partitions too).
    std::optional<epoch_end_offset> diverging_epoch;
    storage::file_slice records;
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
    // read_committed: the aborted transactions overlapping what was read.
    std::vector<storage::aborted_txn> aborted_transactions;
};

struct epoch_end_offset_outcome {
    error_code error = error_code::none;
    int32_t leader_epoch = -1;  // the largest epoch <= the one asked for
    int64_t end_offset = -1;
};

struct list_offsets_outcome {
    samsa::error error{error_code::none};
    int64_t timestamp = -1;
    int64_t offset = -1;
    int32_t leader_epoch = -1;
};

// KIP-890: what a transactional produce verified with its coordinator. The
// guard is the partition's (storage::log::begin_txn_verification), taken
// before asking; 0 when the write was not verified.
struct txn_verification {
    int64_t producer_id = -1;
    uint64_t guard = 0;
};

// A leader's proposal to change its ISR (AlterPartition, KIP-497), made
// against the partition epoch it knows; the change applies once the
// controller has committed it and the new image arrives.
struct isr_proposal {
    storage::topic_partition tp;
    uuid topic_id;
    int32_t leader_epoch = -1;
    int32_t partition_epoch = -1;
    std::vector<node_id> new_isr;
};
using isr_proposer = std::function<void(const isr_proposal&)>;

class partition {
  public:
    partition(storage::topic_partition tp, uuid topic_id, node_id local_node_id,
              std::shared_ptr<storage::log> log);

    const storage::topic_partition& tp() const { return _tp; }
    const uuid& topic_id() const { return _topic_id; }
    const std::shared_ptr<storage::log>& log() const { return _log; }
    // The replica moved to another log dir (cluster/log_dir_mover.h): the
    // same records, offsets and producer state in a new log object.
    void replace_log(std::shared_ptr<storage::log> log) { _log = std::move(log); }
    bool is_leader() const { return _leader == _local_node_id; }
    // A bug on purpose, for the fault harness only (docs/faults.md): acks=all
    // is answered at the leader's log end, without waiting for the ISR, so
    // acknowledged records can be lost. Set from the environment variable
    // SAMSA_UNSAFE_TEST_ACK_AT_LOG_END=1 at startup, never from a config key.
    static void set_unsafe_ack_at_log_end(bool on);
    static bool unsafe_ack_at_log_end();
    // This broker's lease (cluster/leadership_lease.h); nullptr: always held.
    void set_leadership_lease(const leadership_lease* lease) { _lease = lease; }
    int32_t leader_epoch() const { return _leader_epoch; }
    int64_t high_watermark() const { return _log->high_watermark(); }
    // The last stable offset: below it no transaction is open (KIP-98).
    int64_t last_stable_offset() const { return _log->last_stable_offset(); }

    // Applies the partition's registration from a new metadata image.
    void update_registration(const metadata::partition_registration& reg);
    // Produce requests waiting for the ISR to reach their offsets.
    size_t replication_waiters() const { return _replication_waiters.size(); }
    void update_config(const partition_config& cfg);
    // Replication throttles (KIP-73): whether this replica is throttled as
    // its partition's leader (what it sends to catching-up followers) and as
    // a follower (what it fetches while catching up), from its topic's
    // *.replication.throttled.replicas naming this broker.
    bool leader_throttled() const { return _leader_throttled; }
    bool follower_throttled() const { return _follower_throttled; }
    bool in_isr(node_id replica) const;

    // Produce: validates and appends the `records` of one partition of a
    // Produce request, stamping offsets into the bytes in place. Idempotent
    // batches are checked against the log's producer state: a retry of one of
    // a producer's last five batches is answered with its original offsets
    // (nothing written); OUT_OF_ORDER_SEQUENCE_NUMBER / INVALID_PRODUCER_EPOCH
    // as Kafka answers them.
    //
    // `verification` (transaction.partition.verification.enable, KIP-890):
    // a transactional batch whose producer has no transaction open here is
    // refused with INVALID_TXN_STATE unless it carries a guard that is still
    // valid. nullptr: no verification asked for.
    produce_outcome append_records(std::span<uint8_t> records, int16_t produce_version,
                                   int16_t required_acks, int64_t now_ms,
                                   const txn_verification* verification = nullptr);
    // KIP-890: whether a transactional first batch of `producer_id` (epoch
    // `epoch`) needs verifying here: the producer has no transaction open on
    // this partition under that epoch. Takes the guard when it does.
    std::optional<uint64_t> txn_verification_needed(producer_id producer, producer_epoch epoch);

    // Appends a batch written by this broker itself (the group and transaction
    // coordinators: __consumer_offsets, __transaction_state, control batches).
    // Validated as Kafka validates coordinator appends (AppendOrigin.COORDINATOR).
    produce_outcome append_internal(std::span<uint8_t> batch, int64_t now_ms);

    // Fetch by a consumer: reads below the high watermark (read_uncommitted) or
    // the last stable offset (read_committed). `current_leader_epoch` < 0 skips
    // the KIP-320 epoch check.
    // `from_follower_replica`: a consumer that may read from a follower
    // (KIP-392, Fetch v11+); a follower then serves it up to its own high
    // watermark when the epoch matches.
    fetch_outcome read(kafka_offset offset, int64_t max_bytes, isolation_level isolation,
                       bool min_one_message, samsa::leader_epoch current_leader_epoch,
                       bool from_follower_replica = false) const;
    const std::vector<node_id>& replicas() const { return _replicas; }

    // ListOffsets for a consumer: earliest (-2), latest (-1), max timestamp (-3),
    // or the first offset with a timestamp >= `timestamp`.
    list_offsets_outcome list_offsets(int64_t timestamp, isolation_level isolation,
                                      samsa::leader_epoch current_leader_epoch) const;

    // OffsetForLeaderEpoch (KIP-101/KIP-320): the end offset of the largest
    // epoch <= `leader_epoch`, for truncation after a leader change.
    epoch_end_offset_outcome end_offset_for_epoch(samsa::leader_epoch current_leader_epoch,
                                                  samsa::leader_epoch epoch) const;

    // DeleteRecords: offset -1 means the high watermark. Returns the new low
    // watermark (log start offset); POLICY_VIOLATION when cleanup.policy does
    // not include "delete", as Kafka answers.
    result<int64_t> delete_records(int64_t offset, int64_t now_ms);

    // ---- replication (partition_replication.cc; docs/architecture.md, "Replication")
    node_id leader_id() const { return _leader; }
    const std::vector<node_id>& isr() const { return _isr; }
    // Leader: a follower's fetch. Records the follower's log end offset (its
    // fetch offset) and caught-up time, may advance the high watermark, and
    // reads up to the log end. NOT_LEADER_OR_FOLLOWER from a non-replica.
    fetch_outcome read_for_follower(node_id replica, kafka_offset offset, int64_t max_bytes,
                                    bool min_one_message, samsa::leader_epoch current_leader_epoch,
                                    samsa::leader_epoch last_fetched_epoch, int64_t now_ms);
    // Follower: appends what the leader sent (its offsets and epochs) and
    // takes the leader's high watermark, bounded by the local log end.
    status append_as_follower(bytes_view batches, int64_t leader_high_watermark, int64_t now_ms);
    // Follower: drops the log from `offset` on.
    status truncate_to(kafka_offset offset, int64_t now_ms);
    // Follower: the leader says our log diverges; `diverging` is the largest
    // epoch it has at or below our last one, and where it ends there.
    // Truncates to where our logs agree, as Kafka's fetcher does: our own end
    // of that epoch when we have it (and never past the leader's end of it),
    // else the end of our largest epoch below it. Returns the new log end.
    result<int64_t> truncate_to_diverging_epoch(epoch_end_offset diverging, int64_t now_ms);
    // The epoch of the last batch in the local log (none when empty).
    samsa::leader_epoch last_log_epoch() const;
    // acks=all: `done(code)` on this shard once the high watermark reaches
    // `end_offset`: NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR is
    // then smaller than min.insync.replicas; NOT_LEADER_OR_FOLLOWER when this
    // replica stops leading first.
    void when_replicated(kafka_offset end_offset, std::function<void(error_code)> done);
    // replica.lag.time.max.ms, and where ISR changes are sent.
    void set_replication(int64_t replica_lag_time_max_ms, isr_proposer proposer);
    // Leader, every replica.lag.time.max.ms / 2: proposes to drop the ISR
    // followers not caught up for longer than replica.lag.time.max.ms.
    void maybe_shrink_isr(int64_t now_ms);
    // The controller refused (or never answered) the last proposal with
    // `code`. It is proposed again after a short backoff.
    void isr_change_failed(error_code code, int64_t now_ms);
    // The ISR plus the replicas a proposal in flight adds (Kafka's maximal
    // ISR): the members the high watermark waits for.
    std::vector<node_id> maximal_isr() const;

  private:
    void log_state_change(const metadata::partition_registration& reg, bool becomes_leader,
                          bool stops_leading) const;
    // KIP-320: a request's leader epoch older than ours is fenced; newer is unknown to us.
    error_code check_leader_epoch(int32_t current_leader_epoch) const;
    // The code a Produce response carries for a producer state error (issue 7).
    static error idempotent_produce_error(const error& e);
    void maybe_advance_high_watermark();
    void fail_replication_waiters(error_code code);

    // A follower in sync (LEO >= HW and >= this epoch's start) joins the ISR.
    void maybe_expand_isr(node_id replica_id, int64_t now_ms);
    void propose_isr(std::vector<node_id> isr, int64_t now_ms);
    bool isr_change_in_flight(int64_t now_ms) const;

    int64_t _replica_lag_time_max_ms = 30000;
    int64_t _last_isr_check_ms = -1;  // maybe_shrink_isr's last run
    isr_proposer _isr_proposer;
    int64_t _isr_change_sent_ms = -1;
    int32_t _isr_change_partition_epoch = -1;
    int64_t _isr_change_retry_ms = -1;  // no proposal before this after a refusal
    int64_t _leader_epoch_start_offset = 0;
    // Replicas that proposals sent at this partition epoch add to the ISR.
    // The controller may have committed one before this leader hears of it,
    // and then elect such a replica: so they hold the high watermark back
    // as ISR members do from the moment they are proposed (Kafka's maximal
    // ISR, KIP-497), until the partition epoch moves or the controller says
    // it applied nothing.
    std::vector<node_id> _pending_isr_additions;

    // The leader's view of a follower (Kafka's Replica state).
    struct follower_state {
        int64_t log_end_offset = -1;         // its last fetch offset; -1 unknown
        int64_t last_caught_up_ms = -1;      // lastCaughtUpTimeMs
        int64_t last_fetch_leader_leo = -1;  // the leader's LEO at its previous fetch
        int64_t last_fetch_ms = -1;
    };
    std::map<node_id, follower_state> _followers;
    std::vector<std::pair<int64_t, std::function<void(error_code)>>> _replication_waiters;

    storage::topic_partition _tp;
    std::string _tp_name;  // "<topic>-<partition>", for messages
    uuid _topic_id;
    node_id _local_node_id;
    bool _leader_throttled = false;
    const leadership_lease* _lease = nullptr;
    bool _follower_throttled = false;
    std::shared_ptr<storage::log> _log;
    partition_config _config;
    node_id _leader = no_node;
    int32_t _leader_epoch = -1;
    int32_t _partition_epoch = -1;
    std::vector<node_id> _replicas;
    std::vector<node_id> _isr;
};

}  // namespace samsa::cluster
