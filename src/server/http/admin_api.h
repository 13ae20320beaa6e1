#pragma once
// The admin API (JSON; its writes are server/http/admin_writes.h) of the HTTP listener, from the
// metadata image this node serves and its own logs:
//
//   /v1/cluster          cluster id, active controller, brokers, counts, and
//                        whether this listener takes writes (the console's forms)
//   /v1/brokers          every registered broker and its endpoints
//   /v1/topics           every topic: id, partitions, replication factor,
//                        under-replicated partitions
//   /v1/topics/<name>    one topic: its config overrides and each partition's
//                        leader, epoch, replicas, ISR, and, for the replicas
//                        on this broker, the log's size and offsets
//   /v1/topics/<name>/partitions/<p>/records?offset=N|timestamp=T&limit=M
//                        a page of records (server/http/record_browser.h)
//   /v1/groups           the consumer groups this broker coordinates: state,
//                        committed offsets and lag behind the high watermark
//   /v1/quorum           the metadata quorum: leader, epoch, voters
//   /v1/configs          this broker's configs as DescribeConfigs gives them:
//                        value (null when sensitive), source, read-only
//   /v1/loggers          every logger and its level (changed through the
//                        Kafka protocol: BROKER_LOGGER, docs/logging.md)
//
// Field names follow Kafka's Metadata and DescribeCluster responses.
#include <string_view>

#include "server/http/broker_metrics.h"
#include "server/http/http_listener.h"

namespace samsa::server::http {

http_response cluster_json(const observed_node& node);
http_response brokers_json(const observed_node& node);
http_response topics_json(const observed_node& node);
// 404 for a topic the image does not have.
http_response topic_json(const observed_node& node, std::string_view name);
// Everything under /v1/topics/: `rest` is the path after it.
http_response topic_route(const observed_node& node, std::string_view rest, std::string_view query);
http_response records_json(const observed_node& node, std::string_view topic, int32_t partition,
                           std::string_view query);
http_response groups_json(const observed_node& node);
http_response quorum_json(const observed_node& node);
http_response configs_json(const observed_node& node);
http_response loggers_json();

}  // namespace samsa::server::http
