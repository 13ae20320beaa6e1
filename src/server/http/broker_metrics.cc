#include "server/http/broker_metrics.h"

#include <array>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "cluster/purgatory/purgatory.h"
#include "cluster/replica_manager.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/metrics/prometheus_text.h"
#include "common/metrics/thread_stats.h"
#include "metadata/config_view.h"
#include "protocol/generated/api_table.h"
#include "server/broker_context.h"
#include "server/http/group_figures.h"
#include "server/http/partition_figures.h"
#include "server/quorum/broker_lifecycle.h"
#include "server/quorum/metadata_quorum.h"
#include "server/reactor_pool.h"
#include "storage/compaction/log_cleaner.h"
#include "version.h"

namespace samsa::server::http {

namespace {

using metrics::counter;
using metrics::labels;
using metrics::prometheus_text;
using metrics::topic_counters;

// One unlabelled sample of its own family.
void single(prometheus_text& out, std::string_view type, std::string_view name,
            std::string_view help, double v) {
    out.family(name, type, help);
    out.sample(name, {}, v);
}
void gauge(prometheus_text& out, std::string_view name, std::string_view help, double v) {
    single(out, "gauge", name, help, v);
}
void counter_total(prometheus_text& out, std::string_view name, std::string_view help,
                   counter metrics::thread_stats::*c) {
    single(out, "counter", name, help, double(metrics::sum(c)));
}

// Kafka's BrokerTopicMetrics, per topic and (no label) for all topics.
struct topic_figure {
    std::string_view name;
    counter topic_counters::*field;
    std::string_view help;
};
constexpr std::array<topic_figure, 7> k_topic_figures = {{
    {"kafka_server_brokertopicmetrics_messagesin_total", &topic_counters::messages_in,
     "Records appended to the logs this broker leads"},
    {"kafka_server_brokertopicmetrics_bytesin_total", &topic_counters::bytes_in,
     "Record batch bytes appended to the logs this broker leads"},
    {"kafka_server_brokertopicmetrics_bytesout_total", &topic_counters::bytes_out,
     "Record bytes sent to consumers"},
    {"kafka_server_brokertopicmetrics_totalproducerequests_total",
     &topic_counters::total_produce_requests, "Produce requests, counted per partition"},
    {"kafka_server_brokertopicmetrics_failedproducerequests_total",
     &topic_counters::failed_produce_requests,
     "Produce requests whose append failed, counted per partition"},
    {"kafka_server_brokertopicmetrics_totalfetchrequests_total",
     &topic_counters::total_fetch_requests, "Consumer fetches, counted per partition"},
    {"kafka_server_brokertopicmetrics_failedfetchrequests_total",
     &topic_counters::failed_fetch_requests,
     "Consumer fetches answered with an error, counted per partition"},
}};

using topic_totals = std::array<uint64_t, k_topic_figures.size()>;

void add(topic_totals& t, const topic_counters& c) {
    for (size_t i = 0; i < k_topic_figures.size(); ++i) {
        t[i] += (c.*k_topic_figures[i].field).value();
    }
}

void render_topics(prometheus_text& out, const metadata::metadata_image& image) {
    std::map<std::string, topic_totals> by_topic;
    topic_totals all{};
    metrics::for_each_block([&](const metrics::thread_stats& b) {
        add(all, b.all_topics);
        b.for_each_topic([&](const std::string& name, const topic_counters& c) {
            // A deleted topic's figures go with it, as Kafka removes its metrics.
            if (image.topic(name)) {
                add(by_topic[name], c);
            }
        });
    });
    for (size_t i = 0; i < k_topic_figures.size(); ++i) {
        const auto& f = k_topic_figures[i];
        out.family(f.name, "counter", f.help);
        out.sample(f.name, {}, double(all[i]));
        for (const auto& [name, t] : by_topic) {
            out.sample(f.name, {{"topic", name}}, double(t[i]));
        }
    }
    counter_total(out, "kafka_server_brokertopicmetrics_replicationbytesin_total",
                  "Bytes this broker fetched as a follower",
                  &metrics::thread_stats::replication_bytes_in);
    counter_total(out, "kafka_server_brokertopicmetrics_replicationbytesout_total",
                  "Bytes this broker sent to its followers",
                  &metrics::thread_stats::replication_bytes_out);
}

// Kafka's RequestMetrics: requests by api and version, and how long each
// phase of a request took, by api.
constexpr std::array<std::pair<std::string_view, std::string_view>, metrics::k_request_phases>
    k_phases = {{
        {"kafka_network_requestmetrics_requestqueuetimems",
         "Time a read request waited for the requests before it, in ms"},
        {"kafka_network_requestmetrics_localtimems",
         "Time in the request's handler, replication and long polls included, in ms"},
        {"kafka_network_requestmetrics_responsequeuetimems",
         "Time an answer waited for earlier answers and throttling, in ms"},
        {"kafka_network_requestmetrics_responsesendtimems", "Time writing the response, in ms"},
        {"kafka_network_requestmetrics_totaltimems",
         "Time from the request read to its response written, in ms"},
    }};

void render_requests(prometheus_text& out) {
    struct api_totals {
        std::array<uint64_t, metrics::k_max_api_version> versions{};
        std::array<metrics::histogram_totals, metrics::k_request_phases> phases{};
        std::array<uint64_t, metrics::k_error_code_slots> errors{};
    };
    std::map<int16_t, api_totals> by_api;
    metrics::for_each_block([&](const metrics::thread_stats& b) {
        b.for_each_request([&](int16_t api, const metrics::request_counters& c) {
            auto& t = by_api[api];
            for (size_t v = 0; v < t.versions.size(); ++v) {
                t.versions[v] += c.requests[v].value();
            }
            for (size_t p = 0; p < t.phases.size(); ++p) {
                t.phases[p].add(c.times[p]);
            }
            for (size_t e = 0; e < t.errors.size(); ++e) {
                t.errors[e] += c.errors[e].value();
            }
        });
    });
    out.family("kafka_network_requestmetrics_requests_total", "counter",
               "Requests answered (or dropped, acks=0), by api and version");
    for (const auto& [api, t] : by_api) {
        for (size_t v = 0; v < t.versions.size(); ++v) {
            if (t.versions[v] > 0) {
                out.sample("kafka_network_requestmetrics_requests_total",
                           {{"request", std::string(protocol::api_name(api))},
                            {"version", std::to_string(v)}},
                           double(t.versions[v]));
            }
        }
    }
    out.family("kafka_network_requestmetrics_errors_total", "counter",
               "Error codes in responses (the response's own and each topic's, partition's, "
               "group's...), NONE included, by api and error");
    for (const auto& [api, t] : by_api) {
        for (size_t e = 0; e < t.errors.size(); ++e) {
            if (t.errors[e] == 0) {
                continue;
            }
            const std::string_view error = e + 1 == t.errors.size()
                                               ? "UNKNOWN_ERROR_CODE"
                                               : error_name(static_cast<error_code>(int(e) - 1));
            out.sample(
                "kafka_network_requestmetrics_errors_total",
                {{"request", std::string(protocol::api_name(api))}, {"error", std::string(error)}},
                double(t.errors[e]));
        }
    }
    for (size_t p = 0; p < k_phases.size(); ++p) {
        out.family(k_phases[p].first, "histogram", k_phases[p].second);
        for (const auto& [api, t] : by_api) {
            out.histogram(k_phases[p].first, {{"request", std::string(protocol::api_name(api))}},
                          t.phases[p]);
        }
    }
}

// Kafka's ReplicaManager gauges, from the image: what the controller
// committed for the partitions this broker holds.
void render_replica_manager(prometheus_text& out, const observed_node& node,
                            const metadata::metadata_image& image) {
    const node_id self{node.broker->settings.node_id};
    uint64_t partitions = 0, leaders = 0, under_replicated = 0, under_min_isr = 0, at_min_isr = 0,
             offline = 0;
    // The broker's defaults with the image's dynamic configs, once per scrape.
    const std::optional<config::config_set> broker =
        node.broker->config ? std::optional(metadata::effective_broker_config(
                                  node.broker->config->values, image, self.value()))
                            : std::nullopt;
    for (const auto& [name, topic] : image.topics_by_name) {
        int32_t min_isr = -1;  // resolved once per topic, when it leads one
        for (const auto& p : topic->partitions) {
            if (!contains(p.replicas, self)) {
                continue;
            }
            ++partitions;
            offline += std::count(p.offline_replicas.begin(), p.offline_replicas.end(), self);
            if (p.leader != self) {
                continue;
            }
            ++leaders;
            under_replicated += p.isr.size() < p.replicas.size();
            if (min_isr < 0) {
                const auto* rm = node.broker->replicas;
                min_isr = !rm      ? 1
                          : broker ? rm->config_for(image, *topic, *broker).min_insync_replicas
                                   : rm->config_for(image, *topic).min_insync_replicas;
            }
            under_min_isr += int32_t(p.isr.size()) < min_isr;
            at_min_isr += int32_t(p.isr.size()) == min_isr;
        }
    }
    gauge(out, "kafka_server_replicamanager_partitioncount", "Partitions with a replica here",
          double(partitions));
    gauge(out, "kafka_server_replicamanager_leadercount", "Partitions this broker leads",
          double(leaders));
    gauge(out, "kafka_server_replicamanager_underreplicatedpartitions",
          "Led partitions whose ISR is smaller than their replica set", double(under_replicated));
    gauge(out, "kafka_server_replicamanager_underminisrpartitioncount",
          "Led partitions whose ISR is below min.insync.replicas", double(under_min_isr));
    gauge(out, "kafka_server_replicamanager_atminisrpartitioncount",
          "Led partitions whose ISR is exactly min.insync.replicas", double(at_min_isr));
    gauge(out, "kafka_server_replicamanager_offlinereplicacount",
          "Replicas here that the metadata marks offline (a failed log dir)", double(offline));
    counter_total(out, "kafka_server_replicamanager_isrshrinks_total",
                  "ISR shrinks of partitions this broker leads",
                  &metrics::thread_stats::isr_shrinks);
    counter_total(out, "kafka_server_replicamanager_isrexpands_total",
                  "ISR expansions of partitions this broker leads",
                  &metrics::thread_stats::isr_expands);
    if (node.lifecycle) {
        // Kafka's BrokerState: 3 RUNNING once unfenced, 2 RECOVERY before.
        gauge(out, "kafka_server_kafkaserver_brokerstate",
              "3 running (registered and unfenced), 2 catching up",
              node.lifecycle->unfenced() ? 3 : 2);
    }
}

// Kafka's Log gauges per partition (kafka.log:type=Log,name=Size,...), as
// each shard reports its logs.
void render_logs(prometheus_text& out, const figures_by_partition& figures) {
    struct figure {
        std::string_view name, help;
        int64_t partition_figures::*field;
    };
    constexpr std::array<figure, 3> k_figures = {{
        {"kafka_log_log_size", "Bytes of the partition's log segments",
         &partition_figures::size_bytes},
        {"kafka_log_log_logstartoffset", "The partition's log start offset",
         &partition_figures::log_start_offset},
        {"kafka_log_log_logendoffset", "The partition's log end offset",
         &partition_figures::log_end_offset},
    }};
    for (const auto& f : k_figures) {
        out.family(f.name, "gauge", f.help);
        for (const auto& [tp, pf] : figures) {
            out.sample(f.name, {{"topic", tp.topic}, {"partition", std::to_string(tp.partition)}},
                       double(pf.*f.field));
        }
    }
}

// Kafka's DelayedOperationPurgatory figures. A produce waiting for acks=all
// waits on its partition rather than in a purgatory; it counts as Produce.
void render_purgatories(prometheus_text& out, const figures_by_partition& logs) {
    struct sizes {
        double watched = 0, delayed = 0;
    };
    std::map<std::string, sizes> by_name{{"Produce", {}}};
    for (const auto& [tp, pf] : logs) {
        by_name["Produce"].watched += double(pf.delayed_produces);
        by_name["Produce"].delayed += double(pf.delayed_produces);
    }
    cluster::purgatory_base::for_each([&](const std::string& name, size_t watched, size_t delayed) {
        by_name[name].watched += double(watched);
        by_name[name].delayed += double(delayed);
    });
    out.family("kafka_server_delayedoperationpurgatory_purgatorysize", "gauge",
               "Operations in the purgatory's watch lists, completed ones not purged yet included");
    for (const auto& [name, n] : by_name) {
        out.sample("kafka_server_delayedoperationpurgatory_purgatorysize",
                   {{"delayedOperation", name}}, n.watched);
    }
    out.family("kafka_server_delayedoperationpurgatory_numdelayedoperations", "gauge",
               "Operations waiting in the purgatory");
    for (const auto& [name, n] : by_name) {
        out.sample("kafka_server_delayedoperationpurgatory_numdelayedoperations",
                   {{"delayedOperation", name}}, n.delayed);
    }
}

// The groups this broker coordinates, named as the Prometheus Kafka
// exporter names them: committed offsets and lag behind the high watermark.
void render_groups(prometheus_text& out, const observed_node& node,
                   const figures_by_partition& logs) {
    const auto groups = gather_group_figures(*node.broker, logs, std::chrono::seconds(5));
    out.family("kafka_consumergroup_current_offset", "gauge",
               "A group's committed offset of a partition");
    for (const auto& g : groups) {
        for (const auto& o : g.offsets) {
            out.sample("kafka_consumergroup_current_offset",
                       {{"consumergroup", g.group_id},
                        {"topic", o.tp.topic},
                        {"partition", std::to_string(o.tp.partition)}},
                       double(o.committed));
        }
    }
    out.family("kafka_consumergroup_lag", "gauge",
               "Records between a group's committed offset and the high watermark, where this "
               "broker leads the partition");
    for (const auto& g : groups) {
        for (const auto& o : g.offsets) {
            if (o.lag) {
                out.sample("kafka_consumergroup_lag",
                           {{"consumergroup", g.group_id},
                            {"topic", o.tp.topic},
                            {"partition", std::to_string(o.tp.partition)}},
                           double(*o.lag));
            }
        }
    }
}

// Kafka's controller metrics (KafkaController, ControllerStats), on a node
// with the controller role, from the image it serves.
void render_controller(prometheus_text& out, const observed_node& node,
                       const metadata::metadata_image& image) {
    uint64_t partitions = 0, offline = 0, imbalance = 0, fenced = 0, active = 0;
    for (const auto& [name, topic] : image.topics_by_name) {
        for (const auto& p : topic->partitions) {
            ++partitions;
            offline += !p.leader.is_valid();
            imbalance += !p.replicas.empty() && p.leader != p.replicas.front();
        }
    }
    for (const auto& [id, b] : image.brokers) {
        (b.fenced ? fenced : active) += 1;
    }
    gauge(out, "kafka_controller_kafkacontroller_activecontrollercount",
          "1 on the active controller (the quorum leader), else 0",
          node.quorum && node.quorum->is_local_leader() ? 1 : 0);
    gauge(out, "kafka_controller_kafkacontroller_globaltopiccount", "Topics in the cluster",
          double(image.topics_by_name.size()));
    gauge(out, "kafka_controller_kafkacontroller_globalpartitioncount", "Partitions in the cluster",
          double(partitions));
    gauge(out, "kafka_controller_kafkacontroller_offlinepartitionscount",
          "Partitions without a leader", double(offline));
    gauge(out, "kafka_controller_kafkacontroller_preferredreplicaimbalancecount",
          "Partitions not led by their first replica", double(imbalance));
    gauge(out, "kafka_controller_kafkacontroller_activebrokercount", "Registered unfenced brokers",
          double(active));
    gauge(out, "kafka_controller_kafkacontroller_fencedbrokercount", "Registered fenced brokers",
          double(fenced));
}

// Kafka's raft-metrics and the metadata loader's position.
void render_raft(prometheus_text& out, const quorum::metadata_quorum& q) {
    const auto le = q.leader();
    gauge(out, "kafka_server_raftmetrics_current_leader",
          "The quorum leader's node id, -1 while none is known", double(le.leader.value()));
    gauge(out, "kafka_server_raftmetrics_current_epoch", "The quorum's epoch",
          double(le.epoch.value()));
    gauge(out, "kafka_server_raftmetrics_high_watermark",
          "The metadata log's high watermark as last heard, -1 unknown",
          double(q.known_high_watermark()));
    gauge(out, "kafka_server_raftmetrics_commit_latency_avg",
          "On the quorum leader, the average ms from appending a batch to committing it over "
          "the last 30 s; NaN elsewhere or when nothing committed",
          q.commit_latency_avg_ms());
    gauge(out, "kafka_server_raftmetrics_commit_latency_max",
          "On the quorum leader, the longest ms from appending a batch to committing it over "
          "the last 30 s; NaN elsewhere or when nothing committed",
          q.commit_latency_max_ms());
    gauge(out, "kafka_server_brokermetadatametrics_lastappliedrecordoffset",
          "The last metadata log offset applied to this node's image", double(q.applied_offset()));
}

// Kafka's LogCleaner and LogCleanerManager figures.
void render_cleaner(prometheus_text& out, const storage::compaction::log_cleaner& cleaner) {
    const auto f = cleaner.figures();
    gauge(out, "kafka_log_logcleaner_max_clean_time_secs", "Duration of the last cleaning",
          f.last_clean_time_secs);
    gauge(out, "kafka_log_logcleaner_cleaner_recopy_percent",
          "Bytes the last cleaning wrote per 100 bytes it read", f.last_recopy_percent);
    gauge(out, "kafka_log_logcleaner_max_buffer_utilization_percent",
          "How full the last cleaning's offset map got (log.cleaner.dedupe.buffer.size)",
          f.last_buffer_utilization_percent);
    gauge(out, "kafka_log_logcleanermanager_max_dirty_percent",
          "Dirty share of the dirtiest compacted log when the cleaner last looked",
          f.max_dirty_percent);
    gauge(out, "kafka_log_logcleanermanager_uncleanable_partitions_count",
          "Logs the cleaner gave up on until a restart", double(f.uncleanable_partitions));
    gauge(out, "kafka_log_logcleanermanager_time_since_last_run_ms",
          "Milliseconds since a cleaning last finished; -1 before the first",
          f.last_run_ms < 0 ? -1.0 : double(std::max<int64_t>(0, wall_clock_ms() - f.last_run_ms)));
    single(out, "counter", "samsa_log_cleaner_logs_cleaned_total", "Cleanings finished",
           double(f.logs_cleaned));
    single(out, "counter", "samsa_log_cleaner_bytes_read_total", "Log bytes the cleaner read",
           double(f.bytes_read));
    single(out, "counter", "samsa_log_cleaner_bytes_written_total", "Log bytes the cleaner wrote",
           double(f.bytes_written));
}

// The reactors: CPU time (rate() of it is utilisation) and stalls.
void render_reactors(prometheus_text& out, const reactor_pool& reactors) {
    const auto figures = reactors.observe();
    out.family("samsa_reactor_cpu_seconds_total", "counter",
               "CPU time of each reactor thread; its rate is the reactor's utilisation");
    for (size_t i = 0; i < figures.size(); ++i) {
        out.sample("samsa_reactor_cpu_seconds_total", {{"reactor", std::to_string(i)}},
                   figures[i].cpu_seconds);
    }
    out.family("samsa_reactor_stalls_total", "counter",
               "Times a reactor's probe timer fired over 100 ms late: the thread was held");
    for (size_t i = 0; i < figures.size(); ++i) {
        out.sample("samsa_reactor_stalls_total", {{"reactor", std::to_string(i)}},
                   double(figures[i].stalls));
    }
    out.family("samsa_reactor_lag_ms", "gauge",
               "How late a reactor's last probe timer fired, in ms");
    for (size_t i = 0; i < figures.size(); ++i) {
        out.sample("samsa_reactor_lag_ms", {{"reactor", std::to_string(i)}},
                   double(figures[i].lag_us) / 1000.0);
    }
}

}  // namespace

std::string render_metrics(const observed_node& node) {
    prometheus_text out;
    out.family("samsa_build_info", "gauge", "The running Samsa version");
    out.sample("samsa_build_info", {{"version", std::string(k_version)}}, 1);
    const auto image = node.broker->metadata.read();
    if (node.is_broker) {
        render_topics(out, *image);
        render_requests(out);
        render_replica_manager(out, node, *image);
        if (node.broker->replicas) {
            const auto logs =
                gather_partition_figures(*node.broker->replicas, *image, std::chrono::seconds(5));
            render_logs(out, logs);
            render_purgatories(out, logs);
            render_groups(out, node, logs);
        }
    }
    if (node.is_controller) {
        if (!node.is_broker) {
            render_requests(out);
        }
        render_controller(out, node, *image);
    }
    if (node.quorum) {
        render_raft(out, *node.quorum);
    }
    if (node.reactors) {
        render_reactors(out, *node.reactors);
    }
    if (node.cleaner) {
        render_cleaner(out, *node.cleaner);
    }
    return out.take();
}

}  // namespace samsa::server::http
