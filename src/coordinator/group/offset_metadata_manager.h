#pragma once
// offset_metadata_manager: the committed offsets of the groups of the
// __consumer_offsets partitions one shard leads (Kafka's
// OffsetMetadataManager): OffsetCommit and TxnOffsetCommit, OffsetFetch,
// OffsetDelete, the offsets DeleteGroups removes, retention
// (offsets.retention.minutes) and the offsets of deleted topics.
//
// A commit is validated against its group (group_metadata_manager.h), written
// to the group's partition as an OffsetCommit record, and acknowledged once
// that append is on every ISR replica (group_partitions::when_replicated), as
// Kafka appends with acks=all. A transactional commit stays pending until its
// producer's marker (KIP-98).
//
// Threading: one instance per shard, used only on that shard's thread.
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/group_config.h"
#include "coordinator/group/group_metadata_manager.h"
#include "coordinator/group/group_partitions.h"

namespace samsa::coordinator {

// One partition of an OffsetCommit; `error` set beforehand (unknown topic,
// metadata too large) skips it. `topic_id`: the topic's, which a consumer
// group's assignments name it by.
struct offset_commit_item {
    storage::topic_partition tp;
    uuid topic_id;
    offset_and_metadata value;
    error_code error = error_code::none;
};

struct offset_fetch_result {
    error_code error = error_code::none;  // group level
    struct partition {
        storage::topic_partition tp;
        int64_t offset = -1;
        int32_t leader_epoch = -1;
        std::string metadata;
        error_code error = error_code::none;
    };
    std::vector<partition> partitions;
};

// One partition of an OffsetDelete; `error` set beforehand skips it.
struct offset_delete_item {
    storage::topic_partition tp;
    error_code error = error_code::none;
};

class offset_metadata_manager {
  public:
    using clock_fn = std::function<int64_t()>;

    offset_metadata_manager(const group_config& config, clock_fn wall_clock,
                            group_partitions& partitions, group_metadata_manager& groups);
    offset_metadata_manager(const offset_metadata_manager&) = delete;
    offset_metadata_manager& operator=(const offset_metadata_manager&) = delete;

    // Generation -1 with no member id: a commit from outside group
    // management (simple consumer, admin), allowed while the group has no
    // members. Fills each item's error.
    // With `txn` (TxnOffsetCommit), the offsets are written in a transactional
    // batch of that producer and stay pending until its marker.
    // `api_version`: the request's (a consumer group checks OffsetCommit's).
    error_code commit_offsets(const std::string& group_id, int32_t generation_id,
                              const std::string& member_id,
                              const std::optional<std::string>& group_instance_id,
                              std::vector<offset_commit_item>& items, int16_t api_version,
                              const std::optional<txn_producer>& txn = std::nullopt);
    // A transaction marker reached `partition` of __consumer_offsets: the
    // producer's pending offsets become the groups' (commit) or go.
    void complete_txn(int32_t partition, int64_t producer_id, bool commit);
    // `partitions` nullopt: every committed offset of the group.
    // `member_id` / `member_epoch` (OffsetFetch v9+, KIP-848): a consumer
    // group's member must name its current epoch (STALE_MEMBER_EPOCH);
    // nullopt / -1 from an admin.
    offset_fetch_result fetch_offsets(
        const std::string& group_id,
        const std::optional<std::vector<storage::topic_partition>>& partitions, bool require_stable,
        const std::optional<std::string>& member_id = std::nullopt, int32_t member_epoch = -1);
    error_code delete_offsets(const std::string& group_id, std::vector<offset_delete_item>& items);
    // DeleteGroups: every offset of the group goes; returns them (Kafka's
    // deleteAllOffsets), for the caller's tombstones.
    std::vector<storage::topic_partition> delete_all_offsets(coordinator::group& group);

    // Topics that were deleted: their offsets go (seed inventory OFS-07).
    void remove_offsets_of_topics(const std::set<std::string>& topics);
    // offsets.retention.minutes: removes expired offsets, and groups left
    // empty without offsets (Kafka's cleanupGroupMetadata). Returns how many
    // offsets were removed.
    size_t expire_offsets();

    // ---- partition lifecycle
    // A load finished: the transactions it found pending, and the topics
    // deleted while it ran.
    void on_loaded(
        group_coordinator_shard& part,
        std::map<int64_t, std::map<group_coordinator_shard::txn_offset_key, offset_and_metadata>>
            pending_txn_offsets);

  private:
    // A classic group's checks of a commit (Kafka's ClassicGroup
    // validateOffsetCommit and handleTxnCommitOffsets); a commit keeps the
    // member's session alive.
    error_code validate_classic_commit(classic_group& group, int32_t generation_id,
                                       const std::string& member_id,
                                       const std::optional<std::string>& group_instance_id,
                                       bool transactional);
    // After offsets of `group` were removed: tombstones for them, and an
    // empty group left without offsets goes too (Kafka's
    // cleanupGroupMetadata), in one append.
    void cleanup_group(group_coordinator_shard& part, const shared_group& group,
                       const std::vector<storage::topic_partition>& removed);
    // fn(part, group) for every group of every loaded partition (a copy of
    // the list, so fn may remove groups).
    void for_each_loaded_group(
        const std::function<void(group_coordinator_shard&, const shared_group&)>& fn);

    const group_config& _config;
    clock_fn _wall_clock;
    group_partitions& _partitions;
    group_metadata_manager& _groups;
};

}  // namespace samsa::coordinator
