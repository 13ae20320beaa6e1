#include "common/config/broker_config.h"
#include "common/config/tls_config.h"

#include "common/config/broker_config_fixture.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include <unistd.h>

namespace samsa::config {
namespace {

using namespace testing;

TEST(broker_config_def, every_default_parses_and_validates) {
    EXPECT_TRUE(broker_config_def().check_definitions().empty());
    for (const auto& p : broker_config_def().check_definitions()) {
        ADD_FAILURE() << p;
    }
}

TEST(broker_config_def, every_key_has_a_doc) {
    for (const auto& k : broker_config_def().keys()) {
        EXPECT_FALSE(k.doc.empty()) << k.name;
    }
}

TEST(broker_config, kafka_defaults) {
    auto c = ok(minimal());
    EXPECT_EQ(c.node_id, 1);
    EXPECT_EQ(c.socket_request_max_bytes, 104857600);
    EXPECT_EQ(c.socket_send_buffer_bytes, 102400);
    EXPECT_EQ(c.socket_receive_buffer_bytes, 102400);
    EXPECT_EQ(c.num_network_threads, 0);  // Samsa: every reactor (Kafka: 3)
    EXPECT_EQ(c.queued_max_requests, 500);
    EXPECT_EQ(c.connections_max_idle_ms, 600000);
    EXPECT_EQ(c.num_partitions, 1);
    EXPECT_EQ(c.default_replication_factor, 1);
    EXPECT_TRUE(c.auto_create_topics_enable);
    EXPECT_TRUE(c.delete_topic_enable);
    EXPECT_EQ(c.message_max_bytes, 1048588);
    EXPECT_EQ(c.compression_type, "producer");
    EXPECT_EQ(c.min_insync_replicas, 1);
    EXPECT_FALSE(c.unclean_leader_election_enable);
    EXPECT_EQ(c.fetch_max_bytes, 57671680);
    EXPECT_EQ(c.log_segment_bytes, 1073741824);
    EXPECT_EQ(c.log_roll_ms, 168LL * 3600 * 1000);
    EXPECT_EQ(c.log_roll_jitter_ms, 0);
    EXPECT_EQ(c.log_retention_ms, 168LL * 3600 * 1000);
    EXPECT_EQ(c.log_retention_bytes, -1);
    EXPECT_EQ(c.log_retention_check_interval_ms, 300000);
    EXPECT_EQ(c.log_index_size_max_bytes, 10485760);
    EXPECT_EQ(c.log_index_interval_bytes, 4096);
    EXPECT_EQ(c.log_flush_interval_messages, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(c.log_flush_interval_ms, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(c.log_segment_delete_delay_ms, 60000);
    EXPECT_EQ(c.log_cleanup_policy, (list_value{"delete"}));
    EXPECT_TRUE(c.log_cleaner_enable);
    EXPECT_EQ(c.log_message_timestamp_type, "CreateTime");
    EXPECT_EQ(c.log_message_timestamp_before_max_ms, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(c.offsets_topic_num_partitions, 50);
    EXPECT_EQ(c.offsets_topic_replication_factor, 3);
    EXPECT_EQ(c.offsets_retention_minutes, 10080);
    EXPECT_EQ(c.group_initial_rebalance_delay_ms, 3000);
    EXPECT_EQ(c.group_min_session_timeout_ms, 6000);
    EXPECT_EQ(c.group_max_session_timeout_ms, 1800000);
    EXPECT_EQ(c.group_max_size, std::numeric_limits<int32_t>::max());
    EXPECT_EQ(c.transaction_state_log_num_partitions, 50);
    EXPECT_EQ(c.transaction_state_log_replication_factor, 3);
    EXPECT_EQ(c.transaction_state_log_min_isr, 2);
    EXPECT_EQ(c.transactional_id_expiration_ms, 604800000);
    EXPECT_EQ(c.producer_id_expiration_ms, 86400000);
    EXPECT_EQ(c.replica_lag_time_max_ms, 30000);
    EXPECT_EQ(c.replica_fetch_max_bytes, 1048576);
    EXPECT_EQ(c.replica_fetch_wait_max_ms, 500);
    EXPECT_EQ(c.num_replica_fetchers, 1);
    EXPECT_EQ(c.broker_session_timeout_ms, 9000);
    EXPECT_EQ(c.broker_heartbeat_interval_ms, 2000);
    EXPECT_TRUE(c.auto_leader_rebalance_enable);
    EXPECT_EQ(c.leader_imbalance_check_interval_seconds, 300);
    EXPECT_EQ(c.leader_imbalance_per_broker_percentage, 10);
    EXPECT_EQ(c.metadata_log_max_record_bytes_between_snapshots, 20971520);
}

TEST(broker_config, samsa_defaults) {
    auto c = ok(minimal());
    EXPECT_EQ(c.log_dirs, (list_value{"./data"}));
    EXPECT_EQ(c.metadata_log_dir, "./data");
    EXPECT_GE(c.num_io_threads, 1);  // 0 = one per core, resolved
    EXPECT_EQ(c.values.get_int("num.io.threads"), 0);
}

TEST(broker_config, metrics_listener_defaults_to_loopback_9644_and_empty_turns_it_off) {
    auto c = ok(minimal());
    EXPECT_EQ(c.metrics_host, "127.0.0.1");
    EXPECT_EQ(c.metrics_port, 9644);
    auto off = ok(with(minimal(), {{"metrics.listener", ""}}));
    EXPECT_EQ(off.metrics_host, "");
    auto v6 = ok(with(minimal(), {{"metrics.listener", "[::1]:19644"}}));
    EXPECT_EQ(v6.metrics_host, "::1");
    EXPECT_EQ(v6.metrics_port, 19644);
}

TEST(broker_config, a_metrics_listener_that_is_not_host_and_port_is_refused_naming_the_key) {
    for (const char* bad :
         {"9644", "localhost", ":9644", "host:0", "host:70000", "host:12ab", "http://host:9644"}) {
        EXPECT_TRUE(
            contains(fail(with(minimal(), {{"metrics.listener", bad}})), "metrics.listener"))
            << bad;
    }
}

TEST(broker_config, build_from_incomplete_set_is_an_error_not_a_crash) {
    config_set empty(broker_config_def());
    auto r = build_broker_config(empty);
    ASSERT_FALSE(r);
    EXPECT_TRUE(contains(r.err().message, "Missing required configuration"));
}

TEST(broker_config, broker_id_is_a_synonym_of_node_id) {
    auto c = ok(with(without(minimal(), "node.id"), {{"broker.id", "1"}}));
    EXPECT_EQ(c.node_id, 1);
    EXPECT_EQ(c.values.source("node.id"), config_source::static_broker_config);
    auto d = ok(minimal());
    EXPECT_EQ(d.values.get_int("broker.id"), 1);
    EXPECT_TRUE(contains(fail(with(minimal(), {{"broker.id", "2"}})), "must be the same"));
}

TEST(broker_config, required_keys) {
    for (auto key : {"process.roles", "node.id", "controller.listener.names"}) {
        auto msg = fail(without(minimal(), key));
        EXPECT_TRUE(contains(msg, std::string("Missing required configuration \"") + key)) << msg;
    }
}

TEST(broker_config, unknown_keys_are_warnings) {
    auto r = make_broker_config(
        with(minimal(), {{"sasl.kerberos.service.name", "kafka"}, {"typo.key", "1"}}));
    ASSERT_TRUE(r) << r.err().message;
    ASSERT_EQ(r->warnings.size(), 2u);
    EXPECT_EQ(r->warnings[0].key, "sasl.kerberos.service.name");
    EXPECT_EQ(r->warnings[1].key, "typo.key");
}

TEST(broker_config, invalid_values_name_key_value_and_rule) {
    EXPECT_EQ(fail(with(minimal(), {{"num.partitions", "0"}})),
              "Invalid value 0 for configuration num.partitions: Value must be at least 1");
    EXPECT_EQ(fail(with(minimal(), {{"auto.create.topics.enable", "yes"}})),
              "Invalid value yes for configuration auto.create.topics.enable: Expected value to be "
              "either true or false");
    EXPECT_EQ(fail(with(minimal(), {{"compression.type", "brotli"}})),
              "Invalid value brotli for configuration compression.type: String must be one of: "
              "uncompressed, zstd, lz4, snappy, gzip, producer");
    EXPECT_TRUE(contains(fail(with(minimal(), {{"log.cleanup.policy", "delete,archive"}})),
                         "log.cleanup.policy"));
    EXPECT_TRUE(contains(fail(with(minimal(), {{"process.roles", "broker,leader"}})), "leader"));
    EXPECT_TRUE(contains(fail(with(minimal(), {{"log.segment.bytes", "13"}})),
                         "Value must be at least 14"));
    EXPECT_TRUE(contains(fail(with(minimal(), {{"offsets.topic.replication.factor", "40000"}})),
                         "Not a number of type SHORT"));
}

TEST(broker_config, the_group_migration_policy_is_one_of_kafkas_in_any_case) {
    EXPECT_EQ(ok(minimal()).group_consumer_migration_policy, "bidirectional");
    EXPECT_EQ(ok(with(minimal(), {{"group.consumer.migration.policy", "UPGRADE"}}))
                  .group_consumer_migration_policy,
              "upgrade");
    EXPECT_EQ(fail(with(minimal(), {{"group.consumer.migration.policy", "sideways"}})),
              "Invalid value sideways for configuration group.consumer.migration.policy: String "
              "must be one of (case insensitive): bidirectional, upgrade, downgrade, disabled");
}

TEST(broker_config, all_invalid_values_are_reported_together) {
    auto msg = fail(with(minimal(), {{"num.partitions", "0"}, {"socket.request.max.bytes", "x"}}));
    EXPECT_TRUE(contains(msg, "num.partitions"));
    EXPECT_TRUE(contains(msg, "socket.request.max.bytes"));
}

TEST(broker_config, file_errors_carry_line_numbers) {
    auto props = parse_properties(
        "process.roles=broker,controller\nnode.id=1\n"
        "controller.quorum.voters=1@localhost:9093\n"
        "listeners=PLAINTEXT://:9092,CONTROLLER://:9093\ncontroller.listener.names=CONTROLLER\n"
        "num.partitions=-3\n");
    ASSERT_TRUE(props);
    auto r = make_broker_config(*props, {}, "server.properties");
    ASSERT_FALSE(r);
    EXPECT_TRUE(contains(r.err().message, "server.properties:6: Invalid value -3"))
        << r.err().message;
}

TEST(broker_config, overrides_win_over_file) {
    auto r = make_broker_config(with(minimal(), {{"num.partitions", "3"}, {"log.dirs", "/file"}}),
                                {{"num.partitions", "12"}});
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->config.num_partitions, 12);
    EXPECT_EQ(r->config.values.layer_of("num.partitions"), config_layer::static_override);
    EXPECT_EQ(r->config.values.source("num.partitions"), config_source::static_broker_config);
    EXPECT_EQ(r->config.log_dirs, (list_value{"/file"}));
}

TEST(broker_config, invalid_override_is_an_error_even_if_the_file_is_valid) {
    auto msg = fail(with(minimal(), {{"num.partitions", "3"}}), {{"num.partitions", "zero"}});
    EXPECT_TRUE(contains(msg, "override num.partitions")) << msg;
}

TEST(broker_config, parse_overrides) {
    auto o = parse_overrides({"node.id=2", "listeners=PLAINTEXT://:1=2", "empty="});
    ASSERT_TRUE(o) << o.err().message;
    EXPECT_EQ(o->at("node.id"), "2");
    EXPECT_EQ(o->at("listeners"), "PLAINTEXT://:1=2");
    EXPECT_EQ(o->at("empty"), "");
    EXPECT_FALSE(parse_overrides({"node.id"}));
    EXPECT_FALSE(parse_overrides({"=3"}));
}

TEST(broker_config, retention_time_unit_precedence) {
    EXPECT_EQ(ok(with(minimal(), {{"log.retention.hours", "24"}})).log_retention_ms, 86400000);
    EXPECT_EQ(ok(with(minimal(), {{"log.retention.hours", "24"}, {"log.retention.minutes", "5"}}))
                  .log_retention_ms,
              300000);
    EXPECT_EQ(ok(with(minimal(), {{"log.retention.hours", "24"},
                                  {"log.retention.minutes", "5"},
                                  {"log.retention.ms", "1234"}}))
                  .log_retention_ms,
              1234);
    // Any negative value means "no time limit" and reads as -1.
    EXPECT_EQ(ok(with(minimal(), {{"log.retention.ms", "-5"}})).log_retention_ms, -1);
    EXPECT_EQ(ok(with(minimal(), {{"log.retention.hours", "-1"}})).log_retention_ms, -1);
}

TEST(broker_config, roll_and_flush_time_unit_precedence) {
    auto c = ok(with(minimal(), {{"log.roll.hours", "2"}, {"log.roll.jitter.hours", "1"}}));
    EXPECT_EQ(c.log_roll_ms, 2 * 3600000);
    EXPECT_EQ(c.log_roll_jitter_ms, 3600000);
    auto d = ok(with(minimal(), {{"log.roll.hours", "2"},
                                 {"log.roll.ms", "1000"},
                                 {"log.roll.jitter.ms", "10"},
                                 {"log.roll.jitter.hours", "1"}}));
    EXPECT_EQ(d.log_roll_ms, 1000);
    EXPECT_EQ(d.log_roll_jitter_ms, 10);
    EXPECT_EQ(
        ok(with(minimal(), {{"log.flush.scheduler.interval.ms", "3000"}})).log_flush_interval_ms,
        3000);
    EXPECT_EQ(ok(with(minimal(), {{"log.flush.scheduler.interval.ms", "3000"},
                                  {"log.flush.interval.ms", "50"}}))
                  .log_flush_interval_ms,
              50);
}

TEST(broker_config, synonym_groups) {
    auto g = broker_synonyms("log.retention.hours");
    ASSERT_EQ(g.size(), 3u);
    EXPECT_EQ(g[0].name, "log.retention.ms");
    EXPECT_EQ(g[1].unit_ms, 60000);
    EXPECT_EQ(g[2].unit_ms, 3600000);
    auto single = broker_synonyms("message.max.bytes");
    ASSERT_EQ(single.size(), 1u);
    EXPECT_EQ(single[0].name, "message.max.bytes");
}

TEST(broker_config, timestamp_difference_fallback) {
    auto c = ok(with(minimal(), {{"log.message.timestamp.difference.max.ms", "1000"}}));
    EXPECT_EQ(c.log_message_timestamp_before_max_ms, 1000);
    EXPECT_EQ(c.log_message_timestamp_after_max_ms, 1000);
    auto d = ok(with(minimal(), {{"log.message.timestamp.difference.max.ms", "1000"},
                                 {"log.message.timestamp.after.max.ms", "5"}}));
    EXPECT_EQ(d.log_message_timestamp_before_max_ms, 1000);
    EXPECT_EQ(d.log_message_timestamp_after_max_ms, 5);
}

TEST(broker_config, log_dirs_fall_back_to_log_dir) {
    EXPECT_EQ(ok(with(minimal(), {{"log.dir", "/var/samsa"}})).log_dirs,
              (list_value{"/var/samsa"}));
    auto c = ok(with(minimal(), {{"log.dir", "/x"}, {"log.dirs", "/a, /b"}}));
    EXPECT_EQ(c.log_dirs, (list_value{"/a", "/b"}));
    EXPECT_EQ(c.metadata_log_dir, "/a");
    EXPECT_EQ(ok(with(minimal(), {{"metadata.log.dir", "/meta"}})).metadata_log_dir, "/meta");
    EXPECT_TRUE(contains(fail(with(minimal(), {{"log.dirs", "/a,/a"}})), "Duplicate"));
}

TEST(broker_config, replica_fetch_wait_bounds) {
    EXPECT_TRUE(contains(fail(with(minimal(), {{"replica.fetch.wait.max.ms", "40000"},
                                               {"replica.socket.timeout.ms", "60000"}})),
                         "replica.lag.time.max.ms"));
    EXPECT_TRUE(contains(fail(with(minimal(), {{"replica.fetch.wait.max.ms", "20000"},
                                               {"replica.socket.timeout.ms", "10000"}})),
                         "replica.socket.timeout.ms"));
}

TEST(broker_config, rebuild_after_dynamic_change) {
    auto c = ok(minimal());
    config_set values = c.values;
    ASSERT_TRUE(
        values.set_layer(config_layer::dynamic_cluster_default, {{"log.retention.ms", "1000"}})
            .ok());
    EXPECT_FALSE(
        values.set_layer(config_layer::dynamic_broker, {{"log.retention.hours", "1"}}).ok());
    auto rebuilt = build_broker_config(values);
    ASSERT_TRUE(rebuilt) << rebuilt.err().message;
    EXPECT_EQ(rebuilt->log_retention_ms, 1000);
    EXPECT_EQ(rebuilt->values.source("log.retention.ms"),
              config_source::dynamic_default_broker_config);
}

TEST(broker_config, loads_the_shipped_server_properties) {
    const char* src = std::getenv("SAMSA_SOURCE_DIR");
    std::filesystem::path root = src ? src : SAMSA_SOURCE_DIR;
    auto r = load_broker_config(root / "config" / "server.properties");
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_TRUE(r->warnings.empty());
    const auto& c = r->config;
    EXPECT_EQ(c.node_id, 1);
    EXPECT_TRUE(c.is_broker() && c.is_controller());
    ASSERT_EQ(c.advertised_listeners.size(), 1u);
    EXPECT_EQ(c.advertised_listeners[0].to_string(), "PLAINTEXT://localhost:9092");
    EXPECT_EQ(c.log_dirs, (list_value{"./data"}));
    EXPECT_EQ(c.offsets_topic_replication_factor, 1);
    EXPECT_EQ(c.transaction_state_log_replication_factor, 1);
    EXPECT_EQ(c.group_initial_rebalance_delay_ms, 0);
    EXPECT_EQ(c.log_retention_ms, 604800000);
}

TEST(broker_config, load_with_overrides_and_missing_file) {
    auto dir = std::filesystem::temp_directory_path() /
               ("samsa_broker_config_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        std::ofstream out(dir / "server.properties");
        for (const auto& [k, v] : minimal()) {
            out << k << "=" << v << "\n";
        }
        out << "num.partitions=2\n";
    }
    auto r = load_broker_config(dir / "server.properties", {"num.partitions=7"});
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->config.num_partitions, 7);
    EXPECT_FALSE(load_broker_config(dir / "server.properties", {"num.partitions"}));
    auto missing = load_broker_config(dir / "nope.properties");
    ASSERT_FALSE(missing);
    EXPECT_TRUE(contains(missing.err().message, "nope.properties"));
    std::filesystem::remove_all(dir);
}

TEST(broker_config, authorizer_keys) {
    auto off = ok(minimal());
    EXPECT_FALSE(off.authorizer_enabled);
    EXPECT_TRUE(off.super_users.empty());
    EXPECT_FALSE(off.allow_everyone_if_no_acl_found);

    auto on = ok(with(minimal(), {{"authorizer.class.name",
                                   "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
                                  {"super.users", " User:admin ;;User:ANONYMOUS; "},
                                  {"allow.everyone.if.no.acl.found", "true"}}));
    EXPECT_TRUE(on.authorizer_enabled);
    EXPECT_EQ(on.super_users, (std::vector<std::string>{"User:admin", "User:ANONYMOUS"}));
    EXPECT_TRUE(on.allow_everyone_if_no_acl_found);

    // An authorizer Samsa does not have is refused, never ignored.
    auto why = fail(
        with(minimal(), {{"authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"}}));
    EXPECT_TRUE(contains(why, "authorizer.class.name")) << why;
}

}  // namespace
}  // namespace samsa::config
