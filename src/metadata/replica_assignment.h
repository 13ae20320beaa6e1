#pragma once
// Where the replicas of new partitions go. For now a plain round robin over
// the usable (registered, unfenced) brokers starting at a random one: partition
// p gets brokers[(start + p + j) % n] for j in [0, replication_factor), its
// first replica the preferred leader. The multi-broker issue replaces the body
// with Kafka's rack-unaware and rack-aware algorithms (AdminUtils /
// StripedReplicaPlacer); the signature and errors stay.
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "common/result.h"
#include "metadata/metadata_image.h"

namespace samsa::metadata {

// Registered brokers that are not fenced and not in controlled shutdown, by id.
std::vector<int32_t> usable_brokers(const metadata_image& image);

// Replica lists for partitions [first_partition, first_partition + count).
// INVALID_REPLICATION_FACTOR with Kafka's message when the factor is not
// positive, no broker is usable, or the factor exceeds the usable brokers.
result<std::vector<std::vector<int32_t>>> assign_replicas(const std::vector<int32_t>& brokers,
                                                          int32_t first_partition, int32_t count,
                                                          int16_t replication_factor,
                                                          std::mt19937& rng);

// Kafka's checks of one partition's explicit replica list
// (validateManualPartitionAssignment), INVALID_REPLICA_ASSIGNMENT with its
// messages: not empty, every broker registered and named once (checked in
// ascending id order, so the message names the least offender), and, when
// given, as many replicas as the partitions before it.
status validate_manual_assignment(const metadata_image& image, const std::vector<int32_t>& replicas,
                                  std::optional<size_t> replication_factor);

// The initial ISR of a new partition: its replicas that are usable, in order
// (the first is the leader).
std::vector<int32_t> initial_isr(const metadata_image& image, const std::vector<int32_t>& replicas);

}  // namespace samsa::metadata
