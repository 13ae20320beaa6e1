#pragma once
// DescribeTopicPartitions (key 75, v0; KIP-966): the partitions of named (or
// all) topics, in name order, at most ResponsePartitionLimit of them per
// response (and max.request.partition.size.limit), with a cursor to go on
// from. Kafka 3.7+ admin clients describe topics with it.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_topic_partitions_handler();

}  // namespace samsa::server::handlers
