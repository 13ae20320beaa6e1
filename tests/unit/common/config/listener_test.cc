#include "common/config/listener.h"

#include <gtest/gtest.h>

#include "common/config/quorum_voters.h"

namespace samsa::config {
namespace {

protocol_map default_map() {
    return *parse_protocol_map(k_default_protocol_map);
}

TEST(listener, parses_name_host_port) {
    auto ep = parse_endpoint("PLAINTEXT://broker1.example.com:9092");
    ASSERT_TRUE(ep) << ep.err().message;
    EXPECT_EQ(ep->listener_name, "PLAINTEXT");
    EXPECT_EQ(ep->host, "broker1.example.com");
    EXPECT_EQ(ep->port, 9092);
}

TEST(listener, empty_host_means_all_interfaces) {
    auto ep = parse_endpoint("PLAINTEXT://:9092");
    ASSERT_TRUE(ep);
    EXPECT_EQ(ep->host, "");
}

TEST(listener, bracketed_ipv6) {
    auto ep = parse_endpoint("SSL://[::1]:9093");
    ASSERT_TRUE(ep) << ep.err().message;
    EXPECT_EQ(ep->host, "::1");
    EXPECT_EQ(ep->port, 9093);
    auto full = parse_endpoint("SSL://[fe80::1%eth0]:1");
    ASSERT_TRUE(full);
    EXPECT_EQ(full->host, "fe80::1%eth0");
}

TEST(listener, name_is_normalised_to_upper_case) {
    auto ep = parse_endpoint("controller://localhost:9093");
    ASSERT_TRUE(ep);
    EXPECT_EQ(ep->listener_name, "CONTROLLER");
}

TEST(listener, port_zero_is_allowed) {
    auto ep = parse_endpoint("PLAINTEXT://127.0.0.1:0");
    ASSERT_TRUE(ep);
    EXPECT_EQ(ep->port, 0);
}

TEST(listener, malformed_uris_are_errors) {
    for (auto uri : {"localhost:9092", "PLAINTEXT://localhost", "PLAINTEXT://localhost:",
                     "PLAINTEXT://localhost:abc", "PLAINTEXT://localhost:65536",
                     "PLAINTEXT://localhost:-1", "://localhost:9092", "PLAINTEXT://[::1:9092",
                     "PLAINTEXT://[::1]9092", "PLAINTEXT://bad host:9092", "PLAINTEXT://a/b:1"}) {
        auto ep = parse_endpoint(uri);
        EXPECT_FALSE(ep) << uri;
        if (!ep) {
            EXPECT_EQ(ep.err().code, error_code::invalid_config);
            EXPECT_NE(ep.err().message.find(uri), std::string::npos) << ep.err().message;
        }
    }
}

TEST(listener, to_string_brackets_ipv6) {
    EXPECT_EQ((listener{"SSL", "::1", 9093, security_protocol::ssl}.to_string()),
              "SSL://[::1]:9093");
    EXPECT_EQ((listener{"PLAINTEXT", "", 9092}.to_string()), "PLAINTEXT://:9092");
}

TEST(listener, protocol_map) {
    auto m = parse_protocol_map("internal:ssl, EXTERNAL:SASL_SSL,CONTROLLER:PLAINTEXT");
    ASSERT_TRUE(m) << m.err().message;
    EXPECT_EQ(m->at("INTERNAL"), security_protocol::ssl);
    EXPECT_EQ(m->at("EXTERNAL"), security_protocol::sasl_ssl);
    EXPECT_EQ(m->at("CONTROLLER"), security_protocol::plaintext);
    EXPECT_EQ(default_map().size(), 4u);
    EXPECT_TRUE(parse_protocol_map("")->empty());
}

TEST(listener, protocol_map_errors) {
    EXPECT_FALSE(parse_protocol_map("A:PLAINTEXT,B"));
    EXPECT_FALSE(parse_protocol_map("A:B:C"));
    auto unknown = parse_protocol_map("A:TLS");
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.err().message.find("TLS"), std::string::npos);
    EXPECT_FALSE(parse_protocol_map("A:SSL,a:PLAINTEXT"));  // same name twice
}

TEST(listener, list_resolves_protocols) {
    auto map = *parse_protocol_map("CLIENT:SSL,REPLICATION:PLAINTEXT");
    auto ls = parse_listeners({"CLIENT://0.0.0.0:9092", "REPLICATION://localhost:9093"}, map);
    ASSERT_TRUE(ls) << ls.err().message;
    ASSERT_EQ(ls->size(), 2u);
    EXPECT_EQ((*ls)[0].protocol, security_protocol::ssl);
    EXPECT_EQ((*ls)[1].protocol, security_protocol::plaintext);
}

TEST(listener, list_needs_a_protocol_for_every_name) {
    auto ls = parse_listeners({"CLIENT://:9092"}, default_map());
    ASSERT_FALSE(ls);
    EXPECT_NE(ls.err().message.find("No security protocol defined for listener CLIENT"),
              std::string::npos);
}

TEST(listener, list_rejects_duplicate_names_and_ports) {
    EXPECT_FALSE(parse_listeners({"PLAINTEXT://:9092", "PLAINTEXT://:9093"}, default_map()));
    auto ports = parse_listeners({"PLAINTEXT://:9092", "SSL://:9092"}, default_map());
    ASSERT_FALSE(ports);
    EXPECT_NE(ports.err().message.find("different port"), std::string::npos);
    // Port 0 may repeat, and so may a port shared by an IPv4 and an IPv6 literal.
    EXPECT_TRUE(parse_listeners({"PLAINTEXT://:0", "SSL://:0"}, default_map()));
    EXPECT_TRUE(parse_listeners({"PLAINTEXT://127.0.0.1:9092", "SSL://[::1]:9092"}, default_map()));
    // Advertised listeners may share ports.
    EXPECT_TRUE(parse_listeners({"PLAINTEXT://a:9092", "SSL://b:9092"}, default_map(), true));
}

TEST(quorum_voters, parses_entries) {
    auto v = parse_quorum_voters({"1@localhost:9093", "2@[::1]:9094", "3@10.0.0.3:9093"});
    ASSERT_TRUE(v) << v.err().message;
    ASSERT_EQ(v->size(), 3u);
    EXPECT_EQ((*v)[0].id, 1);
    EXPECT_EQ((*v)[0].host, "localhost");
    EXPECT_EQ((*v)[0].port, 9093);
    EXPECT_EQ((*v)[1].host, "::1");
    EXPECT_TRUE(parse_quorum_voters({})->empty());
}

TEST(quorum_voters, errors) {
    for (list_value bad :
         {list_value{"localhost:9093"}, list_value{"x@localhost:9093"},
          list_value{"-1@localhost:9093"}, list_value{"1@localhost"}, list_value{"1@:9093"},
          list_value{"1@a@b:1"}, list_value{"1@a:1", "1@b:2"}}) {
        auto v = parse_quorum_voters(bad);
        EXPECT_FALSE(v) << bad[0];
        if (!v) {
            EXPECT_NE(v.err().message.find("controller.quorum.voters"), std::string::npos)
                << v.err().message;
        }
    }
}

}  // namespace
}  // namespace samsa::config
