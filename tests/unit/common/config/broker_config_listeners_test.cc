// The broker config's roles, listeners and quorum: what Kafka 4 accepts and
// refuses, with its messages.
#include <gtest/gtest.h>

#include "common/config/broker_config.h"
#include "common/config/broker_config_fixture.h"
#include "common/config/tls_config.h"

namespace samsa::config {
namespace {

using namespace testing;

// Kafka 4's shipped config/server.properties (combined mode): the quorum is
// found through controller.quorum.bootstrap.servers, and the CONTROLLER
// listener is advertised.
kv kafka4_combined() {
    return {
        {"process.roles", "broker,controller"},
        {"node.id", "1"},
        {"controller.quorum.bootstrap.servers", "localhost:9093"},
        {"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093"},
        {"inter.broker.listener.name", "PLAINTEXT"},
        {"advertised.listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093"},
        {"controller.listener.names", "CONTROLLER"},
        {"listener.security.protocol.map",
         "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,"
         "SASL_SSL:SASL_SSL"},
        {"num.network.threads", "3"},
        {"num.io.threads", "8"},
        {"log.dirs", "/tmp/kraft-combined-logs"},
        {"offsets.topic.replication.factor", "1"},
        {"transaction.state.log.replication.factor", "1"},
        {"transaction.state.log.min.isr", "1"},
    };
}

TEST(broker_config, listeners_default_is_plaintext_9092) {
    // A controller-only node needs explicit listeners; check the broker default via the table.
    const config_key* k = broker_config_def().find("listeners");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->def.raw, "PLAINTEXT://:9092");
}

TEST(broker_config, roles_listeners_and_advertised) {
    auto c = ok(minimal());
    EXPECT_TRUE(c.is_broker());
    EXPECT_TRUE(c.is_controller());
    ASSERT_EQ(c.listeners.size(), 2u);
    EXPECT_EQ(c.listeners[1].name, "CONTROLLER");
    EXPECT_EQ(c.listeners[1].protocol, security_protocol::plaintext);  // implicit mapping
    ASSERT_EQ(c.advertised_listeners.size(), 1u);  // controller listeners are not advertised
    EXPECT_EQ(c.advertised_listeners[0].name, "PLAINTEXT");
    EXPECT_EQ(c.inter_broker_listener_name, "PLAINTEXT");
    ASSERT_EQ(c.controller_quorum_voters.size(), 1u);
    EXPECT_EQ(c.controller_quorum_voters[0].port, 9093);
    ASSERT_NE(c.find_listener("PLAINTEXT"), nullptr);
    EXPECT_EQ(c.find_listener("PLAINTEXT")->port, 9092);
}

TEST(broker_config, kafka4_shipped_combined_config_is_a_standalone_quorum) {
    auto c = ok(kafka4_combined());
    ASSERT_EQ(c.controller_quorum_voters.size(), 1u);
    EXPECT_EQ(c.controller_quorum_voters[0].id, 1);
    EXPECT_EQ(c.controller_quorum_voters[0].host, "localhost");
    EXPECT_EQ(c.controller_quorum_voters[0].port, 9093);
    // The controller listener is advertised for the quorum, never to clients.
    ASSERT_EQ(c.advertised_listeners.size(), 1u);
    EXPECT_EQ(c.advertised_listeners[0].name, "PLAINTEXT");
    ASSERT_EQ(c.advertised_controller_listeners.size(), 1u);
    EXPECT_EQ(c.advertised_controller_listeners[0].port, 9093);
}

TEST(broker_config, bootstrap_servers_beyond_a_standalone_quorum_are_refused_naming_the_key) {
    for (const auto& servers : {"localhost:9093,otherhost:9093", "otherhost:9999"}) {
        auto msg =
            fail(with(kafka4_combined(), {{"controller.quorum.bootstrap.servers", servers}}));
        EXPECT_TRUE(contains(msg, "controller.quorum.bootstrap.servers")) << msg;
        EXPECT_TRUE(contains(msg, "controller.quorum.voters")) << msg;
    }
    auto broker_only = fail({{"process.roles", "broker"},
                             {"node.id", "2"},
                             {"controller.quorum.bootstrap.servers", "localhost:9093"},
                             {"listeners", "PLAINTEXT://localhost:9092"},
                             {"controller.listener.names", "CONTROLLER"}});
    EXPECT_TRUE(contains(broker_only, "controller.quorum.bootstrap.servers")) << broker_only;
    EXPECT_TRUE(contains(
        fail(with(kafka4_combined(), {{"controller.quorum.bootstrap.servers", "localhost"}})),
        "host:port"));
}

TEST(broker_config, explicit_advertised_listeners) {
    auto c =
        ok(with(minimal(), {{"advertised.listeners", "PLAINTEXT://broker1.example.com:19092"}}));
    ASSERT_EQ(c.advertised_listeners.size(), 1u);
    EXPECT_EQ(c.advertised_listeners[0].host, "broker1.example.com");
    EXPECT_EQ(c.advertised_listeners[0].port, 19092);
}

TEST(broker_config, custom_listener_names_need_the_protocol_map) {
    auto base = with(minimal(), {{"listeners", "CLIENT://:9092,CONTROLLER://:9093"},
                                 {"inter.broker.listener.name", "CLIENT"}});
    EXPECT_TRUE(contains(fail(base), "No security protocol defined for listener CLIENT"));
    auto c =
        ok(with(base, {{"listener.security.protocol.map", "CLIENT:SSL,CONTROLLER:PLAINTEXT"}}));
    EXPECT_EQ(c.listeners[0].protocol, security_protocol::ssl);
    EXPECT_EQ(c.inter_broker_listener_name, "CLIENT");
}

TEST(broker_config, controller_listener_needs_a_protocol_when_the_map_is_explicit) {
    auto msg = fail(with(minimal(), {{"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT"}}));
    EXPECT_TRUE(contains(msg, "Controller listener with name CONTROLLER")) << msg;
    // With TLS in use the implicit CONTROLLER:PLAINTEXT mapping is not added either.
    auto tls = fail(with(minimal(), {{"listeners", "SSL://:9092,CONTROLLER://:9093"},
                                     {"inter.broker.listener.name", "SSL"}}));
    EXPECT_TRUE(contains(tls, "CONTROLLER")) << tls;
}

TEST(broker_config, quorum_checks) {
    EXPECT_TRUE(contains(fail(without(minimal(), "controller.quorum.voters")),
                         "controller.quorum.voters must contain a parseable set"));
    EXPECT_TRUE(contains(fail(with(minimal(), {{"controller.quorum.voters", "2@localhost:9093"}})),
                         "node id 1 must be included"));
    EXPECT_TRUE(contains(fail(with(minimal(), {{"controller.quorum.voters", "1@localhost"}})),
                         "controller.quorum.voters"));
}

TEST(broker_config, broker_only_node) {
    auto broker = kv{{"process.roles", "broker"},
                     {"node.id", "4"},
                     {"controller.quorum.voters", "1@c1:9093,2@c2:9093,3@c3:9093"},
                     {"controller.listener.names", "CONTROLLER"},
                     {"listeners", "PLAINTEXT://:9092"}};
    auto c = ok(broker);
    EXPECT_TRUE(c.is_broker());
    EXPECT_FALSE(c.is_controller());
    EXPECT_TRUE(contains(fail(with(broker, {{"node.id", "1"}})), "must not be included"));
    EXPECT_TRUE(
        contains(fail(with(broker, {{"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093"}})),
                 "must not contain a value appearing in the 'listeners'"));
}

TEST(broker_config, controller_only_node) {
    auto controller = kv{{"process.roles", "controller"},
                         {"node.id", "1"},
                         {"controller.quorum.voters", "1@c1:9093"},
                         {"controller.listener.names", "CONTROLLER"},
                         {"listeners", "CONTROLLER://:9093"}};
    auto c = ok(controller);
    EXPECT_FALSE(c.is_broker());
    EXPECT_TRUE(c.advertised_listeners.empty());
    EXPECT_TRUE(
        contains(fail(with(controller, {{"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093"}})),
                 "must only contain KRaft controller listeners"));
    EXPECT_TRUE(contains(fail(with(controller, {{"listeners", "OTHER://:9093"},
                                                {"listener.security.protocol.map",
                                                 "OTHER:PLAINTEXT,CONTROLLER:PLAINTEXT"}})),
                         "must only contain KRaft controller listeners"));
}

TEST(broker_config, controller_listener_must_be_in_listeners) {
    auto msg = fail(with(minimal(), {{"listeners", "PLAINTEXT://:9092"}}));
    EXPECT_TRUE(contains(msg, "controller.listener.names must only contain values appearing"))
        << msg;
}

TEST(broker_config, inter_broker_listener_checks) {
    EXPECT_TRUE(contains(fail(with(minimal(), {{"inter.broker.listener.name", "PLAINTEXT"},
                                               {"security.inter.broker.protocol", "PLAINTEXT"}})),
                         "Only one of"));
    EXPECT_TRUE(contains(fail(with(minimal(), {{"inter.broker.listener.name", "CONTROLLER"}})),
                         "must not contain the inter-broker listener name"));
    EXPECT_TRUE(contains(fail(with(minimal(), {{"security.inter.broker.protocol", "SSL"}})),
                         "inter.broker.listener.name must be a listener name defined in "
                         "advertised.listeners"));
}

TEST(broker_config, advertised_listener_checks) {
    EXPECT_TRUE(
        contains(fail(with(minimal(), {{"advertised.listeners", "PLAINTEXT://0.0.0.0:9092"}})),
                 "nonroutable meta-address"));
    // Kafka 4 (KIP-853): a combined node may advertise its controller
    // listener; it is kept for the quorum and not published to clients.
    auto combined =
        ok(with(minimal(), {{"advertised.listeners", "PLAINTEXT://h:9092,CONTROLLER://h:9093"}}));
    ASSERT_EQ(combined.advertised_listeners.size(), 1u);
    EXPECT_EQ(combined.advertised_listeners[0].name, "PLAINTEXT");
    EXPECT_EQ(combined.advertised_controller_listeners.size(), 1u);
    EXPECT_TRUE(
        contains(fail(with(minimal(), {{"listeners", "PLAINTEXT://:9092,CONTROLLER://:9092"}})),
                 "different port"));
}

TEST(broker_config, a_listener_overrides_ssl_keys_in_the_per_listener_form) {
    auto r = make_broker_config(
        with(minimal(), {{"ssl.keystore.location", "/all.pem"},
                         {"ssl.client.auth", "requested"},
                         {"listener.name.ssl.ssl.keystore.location", "/ssl.pem"},
                         {"listener.name.ssl.ssl.client.auth", "required"},
                         {"listener.name.ssl.ssl.cipher.suites", "TLS_AES_128_GCM_SHA256"}}));
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_TRUE(r->warnings.empty());
    auto ssl = tls_config_for(r->config.values, "SSL");
    EXPECT_EQ(ssl.keystore_location, "/ssl.pem");
    EXPECT_EQ(ssl.client_auth, client_auth::required);
    EXPECT_EQ(ssl.cipher_suites, std::vector<std::string>{"TLS_AES_128_GCM_SHA256"});
    EXPECT_EQ(ssl.enabled_protocols, (std::vector<std::string>{"TLSv1.2", "TLSv1.3"}));
    auto other = tls_config_for(r->config.values, "EXTERNAL");
    EXPECT_EQ(other.keystore_location, "/all.pem");
    EXPECT_EQ(other.client_auth, client_auth::requested);
    // A per-listener value is checked like the key itself.
    auto bad =
        make_broker_config(with(minimal(), {{"listener.name.ssl.ssl.client.auth", "maybe"}}));
    EXPECT_FALSE(bad);
}

}  // namespace
}  // namespace samsa::config
