#pragma once
// partition: one partition replica hosted by this broker (Kafka's Partition):
// its log, its place in the replica set (leader, epoch, replicas, ISR) as the
// metadata image says, and the operations clients run against it.
//
// Owned by one shard (DESIGN.md §4): every method runs on that shard's thread,
// so nothing here locks.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cluster/partition_config.h"
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
    storage::file_slice records;
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
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

class partition {
  public:
    partition(storage::topic_partition tp, uuid topic_id, int32_t local_node_id,
              std::shared_ptr<storage::log> log);

    const storage::topic_partition& tp() const { return _tp; }
    const uuid& topic_id() const { return _topic_id; }
    const std::shared_ptr<storage::log>& log() const { return _log; }
    bool is_leader() const { return _leader == _local_node_id; }
    int32_t leader_epoch() const { return _leader_epoch; }
    int64_t high_watermark() const { return _log->high_watermark(); }
    // The last stable offset: below it no transaction is open. Equal to the
    // high watermark until transactions land.
    int64_t last_stable_offset() const { return _log->high_watermark(); }

    // Applies the partition's registration from a new metadata image.
    void update_registration(const metadata::partition_registration& reg);
    void update_config(const partition_config& cfg);

    // Produce: validates and appends the `records` of one partition of a
    // Produce request, stamping offsets into the bytes in place. Idempotent
    // batches are checked against the log's producer state: a retry of one of
    // a producer's last five batches is answered with its original offsets
    // (nothing written); OUT_OF_ORDER_SEQUENCE_NUMBER / INVALID_PRODUCER_EPOCH
    // as Kafka answers them.
    produce_outcome append_records(std::span<uint8_t> records, int16_t produce_version,
                                   int16_t required_acks, int64_t now_ms);

    // Appends a batch written by this broker itself (the group and transaction
    // coordinators: __consumer_offsets, __transaction_state, control batches).
    // Validated as Kafka validates coordinator appends (AppendOrigin.COORDINATOR).
    produce_outcome append_internal(std::span<uint8_t> batch, int64_t now_ms);

    // Fetch by a consumer: reads below the high watermark (read_uncommitted) or
    // the last stable offset (read_committed). `current_leader_epoch` < 0 skips
    // the KIP-320 epoch check.
    fetch_outcome read(int64_t offset, int64_t max_bytes, isolation_level isolation,
                       bool min_one_message, int32_t current_leader_epoch) const;

    // ListOffsets for a consumer: earliest (-2), latest (-1), max timestamp (-3),
    // or the first offset with a timestamp >= `timestamp`.
    list_offsets_outcome list_offsets(int64_t timestamp, isolation_level isolation,
                                      int32_t current_leader_epoch) const;

    // OffsetForLeaderEpoch (KIP-101/KIP-320): the end offset of the largest
    // epoch <= `leader_epoch`, for truncation after a leader change.
    epoch_end_offset_outcome end_offset_for_epoch(int32_t current_leader_epoch,
                                                  int32_t leader_epoch) const;

    // DeleteRecords: offset -1 means the high watermark. Returns the new low
    // watermark (log start offset).
    result<int64_t> delete_records(int64_t offset, int64_t now_ms);

  private:
    // KIP-320: a request's leader epoch older than ours is fenced; newer is unknown to us.
    error_code check_leader_epoch(int32_t current_leader_epoch) const;
    // The code a Produce response carries for a producer state error (issue 7).
    static error idempotent_produce_error(const error& e);
    void maybe_advance_high_watermark();

    storage::topic_partition _tp;
    std::string _tp_name;  // "<topic>-<partition>", for messages
    uuid _topic_id;
    int32_t _local_node_id;
    std::shared_ptr<storage::log> _log;
    partition_config _config;
    int32_t _leader = -1;
    int32_t _leader_epoch = -1;
    int32_t _partition_epoch = -1;
    std::vector<int32_t> _replicas;
    std::vector<int32_t> _isr;
};

}  // namespace samsa::cluster
