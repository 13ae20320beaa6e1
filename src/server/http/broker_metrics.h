#pragma once
// /metrics: the broker's figures in Prometheus' text format, named as
// Kafka's MBeans come out of the Prometheus JMX exporter
// (kafka_server_brokertopicmetrics_bytesin_total, ...; docs/metrics.md).
//
// Counters are merged from every thread's metrics::thread_stats; gauges are
// read from the current metadata image and the quorum, both safe from any
// thread, so a scrape never stops a reactor.
#include <string>

namespace samsa::storage::compaction {
class log_cleaner;
}
namespace samsa::server {
struct broker_context;
class reactor_pool;
namespace quorum {
class metadata_quorum;
class broker_lifecycle;
}  // namespace quorum
}  // namespace samsa::server

namespace samsa::server::http {

// What a scrape reads. The pointers outlive the http listener; quorum and
// lifecycle are null where this node has no such part.
struct observed_node {
    const broker_context* broker = nullptr;
    const quorum::metadata_quorum* quorum = nullptr;
    const quorum::broker_lifecycle* lifecycle = nullptr;
    const reactor_pool* reactors = nullptr;
    const storage::compaction::log_cleaner* cleaner = nullptr;  // none: no compaction
    bool is_broker = true;
    bool is_controller = false;
    bool admin_writes = false;  // metrics.listener.admin.writes.enable on a broker
};

std::string render_metrics(const observed_node& node);

}  // namespace samsa::server::http
