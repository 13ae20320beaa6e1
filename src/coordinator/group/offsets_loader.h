#pragma once
// Rebuilds the groups and offsets of one __consumer_offsets partition from
// its log (Kafka's GroupMetadataManager.doLoadGroupsAndOffsets; seed
// inventory GRP-20, OFS-06). Fed the log's batches in offset order, from the
// log start to the log end; the last record per key wins, a tombstone
// removes its key:
//
//   * OffsetCommitKey      the group's committed offset of a partition;
//   * GroupMetadataKey     the group itself (generation, protocol, leader,
//                          members with subscriptions and assignments);
//   * ConsumerGroup*Key    (versions 3-8) consumer groups (KIP-848): the
//                          group epoch, members, target and current
//                          assignments (consumer_group_records.h);
//   * other key versions   records of other group types (share groups):
//                          skipped.
//
// Offset commits inside a transaction (TxnOffsetCommit: a transactional,
// non-control batch) stay pending per producer id until that producer's
// COMMIT marker makes them count, or its ABORT marker drops them; a later
// record of the same key still wins over an earlier one, whichever commits
// last. Records that do not parse are counted and skipped, as Kafka would
// fail the load on them but a compacted log may hold what an older writer
// left: losing one offset is better than a coordinator that never loads.
//
// No I/O here: the coordinator runtime reads the log in chunks and feeds the bytes.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "coordinator/group/classic_group.h"
#include "coordinator/group/consumer_group.h"
#include "coordinator/group/consumer_group_records.h"
#include "coordinator/group/group_offsets.h"
#include "protocol/generated/group_metadata_value.h"

namespace samsa::coordinator {

class offsets_loader {
  public:
    // Applies one whole v2 batch. Fails only when the batch itself does not
    // open (CORRUPT_MESSAGE and the like); bad records are skipped.
    status apply_batch(bytes_view batch);

    // The groups found, each with its offsets; a group whose metadata was
    // deleted but whose offsets remain comes back as an offsets-only (simple)
    // group. `now_ms` stamps groups that carry no state timestamp.
    std::vector<std::unique_ptr<classic_group>> finish(int64_t now_ms);
    // The consumer groups found, each with its offsets; call before finish(),
    // which then leaves their offsets alone.
    std::vector<std::unique_ptr<consumer_group>> take_consumer_groups();

    // Transactional commits whose marker the log does not hold yet: the
    // producer id's offsets by (group, partition).
    std::map<int64_t,
             std::map<std::pair<std::string, storage::topic_partition>, offset_and_metadata>>
    pending_transactions() const;

    size_t records_read() const { return _records; }
    size_t records_skipped() const { return _skipped; }

  private:
    struct offset_entry {
        offset_and_metadata value;
        int64_t record_offset = -1;
    };
    using offset_key = std::pair<std::string, storage::topic_partition>;

    void apply_offset(std::map<offset_key, std::optional<offset_entry>>& into, offset_key key,
                      std::optional<offset_entry> entry);
    void end_transaction(int64_t producer_id, bool commit);
    void apply_consumer_group_record(consumer_group_record rec);

    // A consumer group as its records left it.
    struct loaded_consumer_group {
        std::optional<int32_t> epoch;  // nullopt: no (or a deleted) metadata record
        int32_t assignment_epoch = 0;
        std::map<std::string, consumer_group_member> members;  // key 5
        std::map<std::string, consumer_group_member> current;  // key 8
        std::map<std::string, topic_assignment> targets;       // key 7
    };
    std::map<std::string, loaded_consumer_group> _consumer_groups;

    // nullopt marks a tombstone (kept so a pending transactional commit
    // knows it lost to a later deletion).
    std::map<offset_key, std::optional<offset_entry>> _offsets;
    std::unordered_map<int64_t, std::map<offset_key, std::optional<offset_entry>>> _pending;
    std::map<std::string, std::optional<protocol::group_metadata_value>> _groups;
    size_t _records = 0;
    size_t _skipped = 0;
};

// A group as a GroupMetadataValue describes it: Stable with its members and
// their assignments, or Empty without members.
std::unique_ptr<classic_group> restore_group(const std::string& group_id,
                                             const protocol::group_metadata_value& value,
                                             int64_t now_ms);

}  // namespace samsa::coordinator
