#pragma once
// The consumer-group Admin API calls the `groups` verb is built from:
// ListConsumerGroups, DescribeConsumerGroups, ListConsumerGroupOffsets,
// AlterConsumerGroupOffsets, DeleteGroups — each one bounded admin call.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

using topic_partition = std::pair<std::string, int32_t>;

struct group_listing {
    std::string group_id;
    std::string state;  // Kafka's names: Stable, Empty, Dead, PreparingRebalance, ...
};

struct group_member {
    std::string consumer_id;
    std::string group_instance_id;
    std::string client_id;
    std::string host;
    std::vector<topic_partition> assignment;
    // Consumer groups (KIP-848) only.
    std::optional<int32_t> current_epoch;
    std::optional<int32_t> target_epoch;
    std::vector<topic_partition> target_assignment;
};

struct group_description {
    std::string group_id;
    std::string type = "Classic";  // or "Consumer" (KIP-848), as Kafka's GroupType prints
    std::string state;             // "Dead" also for a group the coordinator does not know
    std::string assignor;
    broker_info coordinator;
    std::vector<group_member> members;
    // Consumer groups (KIP-848) only.
    std::optional<int32_t> group_epoch;
    std::optional<int32_t> target_assignment_epoch;
};

result<std::vector<group_listing>> list_groups(kafka_client& client);
result<group_description> describe_group(kafka_client& client, const std::string& group);
// Committed offsets of the group, by partition (partitions without one are absent).
result<std::map<topic_partition, int64_t>> committed_offsets(kafka_client& client,
                                                             const std::string& group);
status alter_committed_offsets(kafka_client& client, const std::string& group,
                               const std::map<topic_partition, int64_t>& offsets);
// Per group: empty string on success, else the error text.
result<std::map<std::string, std::string>> delete_groups(kafka_client& client,
                                                         const std::vector<std::string>& groups);

}  // namespace samsa::tools
