#pragma once
// Which __consumer_offsets partition holds a group (docs/architecture.md, "Coordinators", seed
// inventory GRP-01): Kafka's GroupCoordinator.partitionFor,
//
//   Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions
//
// where hashCode is java.lang.String.hashCode over the UTF-16 code units of
// the id, and Utils.abs maps Integer.MIN_VALUE to 0 (not to itself, as
// Math.abs would). A client and every broker must agree on this bit for bit,
// or a group would have two coordinators.
#include <cstdint>
#include <string_view>

namespace samsa::coordinator {

// java.lang.String.hashCode of the string a Java broker decodes from these
// UTF-8 bytes: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, in int32
// arithmetic that wraps. Characters outside the BMP count as two surrogates;
// malformed UTF-8 counts as U+FFFD per maximal invalid subsequence, as Java's
// decoder replaces it.
int32_t java_string_hash_code(std::string_view utf8);

// Kafka's Utils.abs: |n|, and 0 for INT32_MIN.
inline int32_t kafka_abs(int32_t n) {
    return n == INT32_MIN ? 0 : (n < 0 ? -n : n);
}

// The __consumer_offsets partition of `group_id` (num_partitions > 0).
inline int32_t offsets_partition_for(std::string_view group_id, int32_t num_partitions) {
    return kafka_abs(java_string_hash_code(group_id)) % num_partitions;
}

}  // namespace samsa::coordinator
