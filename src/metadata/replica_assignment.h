#pragma once
// Where the replicas of new partitions go: Kafka's AdminUtils
// assignReplicasToBrokers, rack-unaware and rack-aware, with its
// fixedStartIndex / startPartitionId parameters. The first replica of each
// list is the preferred leader.
//
// Rack-unaware, over the brokers sorted by id (n of them):
//   startIndex       = fixed start index, else random in [0, n)
//   nextReplicaShift = fixed shift, else the fixed start index, else random
//   for each partition p from startPartitionId on:
//     if p > 0 and p % n == 0: nextReplicaShift += 1
//     first = (p + startIndex) % n           -> the leader, brokers[first]
//     follower j (0-based) = brokers[replicaIndex(first, nextReplicaShift, j, n)]
//   replicaIndex(first, shift, j, n) = (first + 1 + (shift + j) % (n - 1)) % n
// The step 1 + (shift + j) % (n - 1) lies in [1, n - 1], so no follower lands
// on the leader and the followers of one partition are distinct.
//
// Rack-aware: the same walk over the rack-alternated broker list (racks in
// ascending name order, one broker of each in turn, ascending ids within a
// rack), with the followers probed at replicaIndex(first, nextReplicaShift *
// numRacks, k, n) for k = 0, 1, 2, ... (k advances on every probe). A probe is
// taken only if its rack holds no replica of the partition yet (or every rack
// does) and the broker holds none (or every broker does), so with RF <= racks
// each replica sits in a different rack.
//
// Which of the two: rack-aware as soon as one usable broker has a rack. When
// some do and some don't, AdminUtils refuses ("Not all brokers have rack
// information ...") unless rack awareness is disabled, but that is the
// command line tools' answer; the KRaft controller's StripedReplicaPlacer,
// which places new topics in today's Kafka, accepts the mix and treats the
// brokers without a rack as one more rack that sorts before every named one.
// We do the same, so a half-configured cluster still creates topics, spread
// over the named racks and the "no rack" group. With no rack at all the
// rack-aware walk reduces to the rack-unaware one, which is used.
//
// Note the KRaft controller itself places with StripedReplicaPlacer's own
// round robin over racks, not with this walk; we keep the AdminUtils walk
// (deterministic given its start index and shift, so testable by table) and
// StripedReplicaPlacer's error messages, as before.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/result.h"
#include "metadata/metadata_image.h"

namespace samsa::metadata {

// A broker as replica placement sees it (Kafka's BrokerMetadata).
struct broker_rack {
    node_id id = no_node;
    std::optional<std::string> rack;

    bool operator==(const broker_rack&) const = default;
};

// Registered brokers that are not fenced and not in controlled shutdown, by id.
std::vector<node_id> usable_brokers(const metadata_image& image);

// The same brokers with the rack of their registration, by id.
std::vector<broker_rack> usable_broker_racks(const metadata_image& image);

// Kafka's getRackAlternatedBrokerList: racks in ascending order (no rack
// first), each rack's brokers in ascending id order, taking one broker from
// each rack in turn and skipping racks that ran out. Racks r1:{0,1,2},
// r2:{3,4,5}, r3:{6,7,8} give 0,3,6,1,4,7,2,5,8.
std::vector<node_id> rack_alternated_broker_list(const std::vector<broker_rack>& brokers);

// Replica lists for partitions [start_partition_id, start_partition_id +
// n_partitions), by the algorithms above; the order of `brokers` does not
// matter (they are sorted by id), their ids must be distinct. A new topic
// passes start_partition_id 0 and nothing fixed.
// fixed_start_index and fixed_replica_shift, when given, must not be negative;
// as in Kafka a fixed start index also fixes the shift unless
// fixed_replica_shift is given too. Whatever is not fixed is drawn from `rng`
// (start index first, then shift). INVALID_REPLICATION_FACTOR with Kafka's
// (StripedReplicaPlacer's) messages when the factor is not positive, no broker
// is usable, or the factor exceeds the usable brokers.
result<std::vector<std::vector<node_id>>> assign_replicas_to_brokers(
    const std::vector<broker_rack>& brokers, int32_t start_partition_id, int32_t n_partitions,
    int16_t replication_factor, std::mt19937& rng,
    std::optional<int32_t> fixed_start_index = std::nullopt,
    std::optional<int32_t> fixed_replica_shift = std::nullopt);

// The same for brokers without racks (rack-unaware), random start and shift.
result<std::vector<std::vector<node_id>>> assign_replicas(const std::vector<node_id>& brokers,
                                                          int32_t first_partition, int32_t count,
                                                          int16_t replication_factor,
                                                          std::mt19937& rng);

// The start index that continues a topic's leader rotation when partitions are
// added: the position, in the list the assignment walks (by id, or
// rack-alternated), of the first broker by id whose id is >= the first replica
// of the existing partition 0; 0 when there is none. This is Kafka's ZooKeeper
// era AdminZkClient.addPartitions rule, except that Kafka looked the position
// up in the id-sorted list even when it then walked the rack-alternated one.
int32_t start_index_continuing(const std::vector<broker_rack>& brokers,
                               node_id partition0_first_replica);

// CreatePartitions: replica lists for partitions [existing, existing + count)
// of a topic whose partition 0 has `partition0_replicas`, continuing its
// assignment: startPartitionId = existing and the fixed start index of
// start_index_continuing() (which, as in Kafka, is also the shift). Recent
// versions of KRaft's StripedReplicaPlacer also continue from the existing
// partitions (the rack after the last partition's leader's); we keep the
// AdminUtils walk, so new partitions take the leaders that a larger topic
// would have had at creation, as long as the brokers did not change (the
// followers differ: the shift is not the one drawn at creation). With an
// empty partition 0 the start is random.
result<std::vector<std::vector<node_id>>> assign_added_partitions(
    const std::vector<broker_rack>& brokers, const std::vector<node_id>& partition0_replicas,
    int32_t existing, int32_t count, int16_t replication_factor, std::mt19937& rng);

// Kafka's checks of one partition's explicit replica list
// (validateManualPartitionAssignment), INVALID_REPLICA_ASSIGNMENT with its
// messages: not empty, every broker registered and named once (checked in
// ascending id order, so the message names the least offender), and, when
// given, as many replicas as the partitions before it.
status validate_manual_assignment(const metadata_image& image, const std::vector<node_id>& replicas,
                                  std::optional<size_t> replication_factor);

// The initial ISR of a new partition: its replicas that are usable, in order
// (the first is the leader).
std::vector<node_id> initial_isr(const metadata_image& image, const std::vector<node_id>& replicas);

}  // namespace samsa::metadata
