// /metrics and the health checks of the in-process broker, rendered directly
// (server/http/broker_metrics.h): counters move by exactly what a test
// produces and consumes, and the gauges match the one-node cluster.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>

#include "broker_fixture.h"
#include "common/metrics/thread_stats.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "server/http/broker_metrics.h"
#include "server/http/health.h"
#include "server/server.h"

namespace samsa::server::test {
namespace {

// The value of the sample `series` (name and labels exactly as rendered,
// e.g. `x_total{topic="t"}`), or nullopt when absent.
std::optional<double> sample(const std::string& text, const std::string& series) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
            line[series.size()] == ' ') {
            return std::stod(line.substr(series.size() + 1));
        }
    }
    return std::nullopt;
}

class broker_metrics_test : public broker_test {
  protected:
    void SetUp() override {
        broker_test::SetUp();
        // The fixture serves no metrics.listener, which turns counting off.
        metrics::set_enabled(true);
    }

    std::string scrape() { return http::render_metrics(broker().srv().observed()); }

    double value(const std::string& series) {
        auto v = sample(scrape(), series);
        EXPECT_TRUE(v.has_value()) << series << " missing";
        return v.value_or(-1);
    }
};

std::string topic_series(const std::string& figure, const std::string& topic) {
    return "kafka_server_brokertopicmetrics_" + figure + "_total{topic=\"" + topic + "\"}";
}

TEST_F(broker_metrics_test, produce_and_fetch_move_the_topic_counters_by_what_they_carried) {
    const auto topic = unique_name("metrics-topic");
    const uuid id = broker().create_topic(topic);
    const double all_in_before = value("kafka_server_brokertopicmetrics_messagesin_total");

    ASSERT_ERROR(broker().produce(topic, 0, 5).error_code, error_code::none);
    const double batch = double(make_batch(5).size());
    EXPECT_EQ(value(topic_series("messagesin", topic)), 5);
    EXPECT_EQ(value(topic_series("bytesin", topic)), batch);
    EXPECT_EQ(value(topic_series("totalproducerequests", topic)), 1);
    EXPECT_EQ(value(topic_series("failedproducerequests", topic)), 0);
    EXPECT_GE(value("kafka_server_brokertopicmetrics_messagesin_total"), all_in_before + 5);
    const std::string tp = "{topic=\"" + topic + "\",partition=\"0\"}";
    EXPECT_EQ(value("kafka_log_log_logendoffset" + tp), 5);
    EXPECT_EQ(value("kafka_log_log_size" + tp), batch);

    protocol::fetch_request req;
    req.replica_id = no_node;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = 1 << 20;
    req.session_epoch = -1;
    auto& t = req.topics.emplace_back();
    t.topic_id = id;
    auto& p = t.partitions.emplace_back();
    p.partition = 0;
    p.partition_max_bytes = 1 << 20;
    auto resp = broker().call<protocol::fetch_response>(req, 13);
    ASSERT_EQ(resp.responses.size(), 1u);
    // The fetch is counted once it is answered, on the handler's reactor.
    EXPECT_TRUE(broker_fixture::wait_until(
        [&] { return sample(scrape(), topic_series("totalfetchrequests", topic)) == 1.0; }));
    EXPECT_EQ(value(topic_series("bytesout", topic)), batch);
    EXPECT_EQ(value(topic_series("failedfetchrequests", topic)), 0);
}

TEST_F(broker_metrics_test, requests_are_counted_by_api_and_version_and_timed) {
    const auto topic = unique_name("metrics-requests");
    broker().create_topic(topic);
    const std::string produce_v9 =
        "kafka_network_requestmetrics_requests_total{request=\"Produce\",version=\"9\"}";
    const double before = sample(scrape(), produce_v9).value_or(0);
    ASSERT_ERROR(broker().produce(topic, 0, 1).error_code, error_code::none);
    // Counted after the response is written: poll.
    EXPECT_TRUE(broker_fixture::wait_until(
        [&] { return sample(scrape(), produce_v9).value_or(0) >= before + 1; }));
    const auto text = scrape();
    const auto count =
        sample(text, "kafka_network_requestmetrics_totaltimems_count{request=\"Produce\"}");
    const auto inf = sample(
        text, "kafka_network_requestmetrics_totaltimems_bucket{request=\"Produce\",le=\"+Inf\"}");
    ASSERT_TRUE(count && inf);
    EXPECT_EQ(*count, *inf);  // every observation falls in the +Inf bucket
    EXPECT_GE(*count, 1);
    EXPECT_TRUE(sample(text, "kafka_network_requestmetrics_localtimems_sum{request=\"Produce\"}"));
}

TEST_F(broker_metrics_test, gauges_describe_the_one_node_cluster) {
    broker().create_topic(unique_name("metrics-gauges"), 3);
    EXPECT_GE(value("kafka_server_replicamanager_partitioncount"), 3);
    EXPECT_EQ(value("kafka_server_replicamanager_leadercount"),
              value("kafka_server_replicamanager_partitioncount"));
    EXPECT_EQ(value("kafka_server_replicamanager_underreplicatedpartitions"), 0);
    EXPECT_EQ(value("kafka_server_replicamanager_underminisrpartitioncount"), 0);
    EXPECT_EQ(value("kafka_server_replicamanager_offlinereplicacount"), 0);
    EXPECT_EQ(value("kafka_controller_kafkacontroller_activecontrollercount"), 1);
    EXPECT_EQ(value("kafka_controller_kafkacontroller_offlinepartitionscount"), 0);
    EXPECT_EQ(value("kafka_controller_kafkacontroller_activebrokercount"), 1);
    EXPECT_GE(value("kafka_controller_kafkacontroller_globaltopiccount"), 1);
    EXPECT_EQ(value("kafka_server_raftmetrics_current_leader"), broker().node_id());
    EXPECT_GE(value("kafka_server_raftmetrics_current_epoch"), 1);
    EXPECT_EQ(value("kafka_server_kafkaserver_brokerstate"), 3);
    EXPECT_GT(value("samsa_reactor_cpu_seconds_total{reactor=\"0\"}"), 0);
    EXPECT_GE(value("samsa_reactor_stalls_total{reactor=\"0\"}"), 0);
    EXPECT_GE(value("samsa_reactor_lag_ms{reactor=\"0\"}"), 0);
}

TEST_F(broker_metrics_test, a_deleted_topic_leaves_the_per_topic_series) {
    // A topic that was never in the image has no series, whatever was counted.
    metrics::local().topic("metrics-never-created").bytes_in.add(7);
    EXPECT_FALSE(sample(scrape(), topic_series("bytesin", "metrics-never-created")));
}

TEST_F(broker_metrics_test, the_ready_check_passes_on_a_registered_broker) {
    const auto live = http::live_check();
    EXPECT_EQ(live.status, 200);
    const auto ready = http::ready_check(broker().srv().observed());
    EXPECT_EQ(ready.status, 200) << ready.body;
    EXPECT_NE(ready.body.find("\"ready\":true"), std::string::npos) << ready.body;
    EXPECT_NE(ready.body.find("\"leader\":1"), std::string::npos) << ready.body;
}

TEST(ready_check_test, a_broker_without_its_lifecycle_is_not_ready) {
    http::observed_node node;
    node.is_broker = true;
    const auto r = http::ready_check(node);
    EXPECT_EQ(r.status, 503);
    EXPECT_NE(r.body.find("\"unfenced\":false"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace samsa::server::test
