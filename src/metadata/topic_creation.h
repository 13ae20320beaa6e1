#pragma once
// CreateTopics on the controller (Kafka's ReplicationControlManager.createTopics
// with ControllerApis' request checks), and the topics auto-creation makes.
//
// Per topic, in Kafka's order, each failure its error code and message:
//   duplicate name in the request           INVALID_REQUEST
//   __cluster_metadata                      INVALID_REQUEST
//   illegal name, '.'/'_' collision         INVALID_TOPIC_EXCEPTION
//   name taken                              TOPIC_ALREADY_EXISTS
//   null / unknown / invalid config         INVALID_CONFIG
//   explicit assignments with num_partitions or replication_factor != -1
//                                           INVALID_REQUEST
//   bad explicit assignment                 INVALID_REPLICA_ASSIGNMENT
//   replication factor 0 / < -1, or above the usable brokers
//                                           INVALID_REPLICATION_FACTOR
//   num_partitions 0 / < -1                 INVALID_PARTITIONS
// -1 means the broker default (num.partitions, default.replication.factor).
// Each created topic is a TopicRecord, its ConfigRecords and its
// PartitionRecords (leader = first ISR replica, ISR = usable replicas, epochs 0);
// with validate_only nothing is recorded but the answers are the same. The
// response carries, for every version, the topic id, partition count,
// replication factor and effective configs (the encoder keeps what the
// request's version has).
#include <string>

#include "metadata/controller_plan.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"

namespace samsa::metadata {

controller_plan<protocol::create_topics_response> plan_create_topics(
    const controller_state& state, const protocol::create_topics_request& request);

// What auto topic creation asks for `name`: __consumer_offsets and
// __transaction_state with their own partitions, replication factor and
// configs (as Kafka's group and transaction coordinators create them); any
// other topic with -1 (the broker defaults).
protocol::create_topics_request::creatable_topic auto_created_topic(
    const std::string& name, const config::broker_config& config);

}  // namespace samsa::metadata
