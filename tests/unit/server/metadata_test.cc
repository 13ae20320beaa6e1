// Metadata (key 3) against the in-process broker: brokers and controller of
// the one-node cluster, unknown topics by name and by id, invalid names,
// topic ids before v12 (INVALID_REQUEST), auto-creation both ways, and a
// body that fails to decode.
#include <gtest/gtest.h>

#include "broker_fixture.h"

namespace samsa::server::test {
namespace {

using protocol::metadata_request;
using protocol::metadata_response;

class metadata_test : public broker_test {};

metadata_request named(std::vector<std::string> names, bool auto_create = false) {
    metadata_request req;
    req.topics.emplace();
    for (auto& n : names) {
        req.topics->emplace_back().name = std::move(n);
    }
    req.allow_auto_topic_creation = auto_create;
    return req;
}

TEST_F(metadata_test, lists_this_broker_and_controller) {
    auto resp = broker().metadata({});
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].node_id.value(), broker().node_id());
    EXPECT_EQ(resp.brokers[0].port, broker().port());
    EXPECT_EQ(resp.controller_id.value(), broker().node_id());
    EXPECT_EQ(resp.cluster_id, broker().cluster_id());
    EXPECT_TRUE(resp.topics.empty());
}

TEST_F(metadata_test, existing_topic_has_leader_and_id) {
    const auto name = unique_name("md-existing");
    const uuid id = broker().create_topic(name, 3);
    auto resp = broker().metadata({name});
    ASSERT_EQ(resp.topics.size(), 1u);
    const auto& t = resp.topics[0];
    EXPECT_ERROR(t.error_code, error_code::none);
    EXPECT_EQ(t.topic_id, id);
    EXPECT_FALSE(t.is_internal);
    ASSERT_EQ(t.partitions.size(), 3u);
    for (const auto& p : t.partitions) {
        EXPECT_ERROR(p.error_code, error_code::none);
        EXPECT_EQ(p.leader_id.value(), broker().node_id());
        EXPECT_EQ(p.replica_nodes, to_node_ids({broker().node_id()}));
        EXPECT_EQ(p.isr_nodes, to_node_ids({broker().node_id()}));
    }
}

TEST_F(metadata_test, unknown_topic_is_unknown_topic_or_partition) {
    auto resp = broker().metadata({unique_name("md-missing")});
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_ERROR(resp.topics[0].error_code, error_code::unknown_topic_or_partition);
    EXPECT_TRUE(resp.topics[0].partitions.empty());
}

TEST_F(metadata_test, invalid_topic_name_is_invalid_topic_exception) {
    auto resp = broker().call<metadata_response>(named({"bad name!"}, true), 12);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_ERROR(resp.topics[0].error_code, error_code::invalid_topic_exception);
}

TEST_F(metadata_test, unknown_topic_id_is_unknown_topic_id) {
    metadata_request req;
    req.topics.emplace();
    auto& t = req.topics->emplace_back();
    t.name = std::nullopt;
    t.topic_id = uuid::random();
    auto resp = broker().call<metadata_response>(req, 12);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_ERROR(resp.topics[0].error_code, error_code::unknown_topic_id);
}

TEST_F(metadata_test, topic_by_id_in_v12) {
    const auto name = unique_name("md-by-id");
    const uuid id = broker().create_topic(name);
    metadata_request req;
    req.topics.emplace();
    auto& t = req.topics->emplace_back();
    t.name = std::nullopt;
    t.topic_id = id;
    auto resp = broker().call<metadata_response>(req, 12);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_ERROR(resp.topics[0].error_code, error_code::none);
    EXPECT_EQ(resp.topics[0].name, name);
}

TEST_F(metadata_test, topic_id_before_v12_is_invalid_request) {
    metadata_request req;
    req.topics.emplace();
    auto& t = req.topics->emplace_back();
    t.name = "x";
    t.topic_id = uuid::random();
    auto resp = broker().call<metadata_response>(req, 11);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_ERROR(resp.topics[0].error_code, error_code::invalid_request);
}

TEST_F(metadata_test, null_topics_lists_every_topic) {
    const auto name = unique_name("md-all");
    broker().create_topic(name);
    metadata_request req;
    req.topics = std::nullopt;
    auto resp = broker().call<metadata_response>(req, 12);
    bool found = false;
    for (const auto& t : resp.topics) {
        found |= t.name == name;
    }
    EXPECT_TRUE(found);
}

TEST_F(metadata_test, no_auto_creation_when_the_client_does_not_allow_it) {
    const auto name = unique_name("md-no-auto");
    auto resp = broker().call<metadata_response>(named({name}, false), 12);
    ASSERT_EQ(resp.topics.size(), 1u);
    EXPECT_ERROR(resp.topics[0].error_code, error_code::unknown_topic_or_partition);
    // Still missing afterwards.
    auto again = broker().metadata({name});
    ASSERT_EQ(again.topics.size(), 1u);
    EXPECT_ERROR(again.topics[0].error_code, error_code::unknown_topic_or_partition);
}

TEST_F(metadata_test, auto_creation_creates_the_topic) {
    const auto name = unique_name("md-auto");
    auto first = broker().call<metadata_response>(named({name}, true), 12);
    ASSERT_EQ(first.topics.size(), 1u);
    // Not served yet: the client retries until the topic has leaders.
    EXPECT_NE(first.topics[0].error_code, 0);
    EXPECT_TRUE(broker_fixture::wait_until([&] {
        auto md = broker().metadata({name});
        return md.topics.size() == 1 && md.topics[0].error_code == 0 &&
               md.topics[0].partitions.size() == 1 &&
               md.topics[0].partitions[0].leader_id.is_valid();
    }));
}

TEST_F(metadata_test, duplicate_names_are_answered_once) {
    const auto name = unique_name("md-dup");
    broker().create_topic(name);
    auto resp = broker().call<metadata_response>(named({name, name}), 12);
    EXPECT_EQ(resp.topics.size(), 1u);
}

TEST_F(metadata_test, truncated_body_closes_connection) {
    protocol::writer w;
    named({"some-topic"}).encode(w, 12);
    bytes body = w.buffer();
    body.resize(body.size() - 3);
    EXPECT_TRUE(broker().call_raw(broker_fixture::frame(3, 12, body)).closed);
}

}  // namespace
}  // namespace samsa::server::test
