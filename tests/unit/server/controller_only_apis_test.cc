// The KRaft and broker-lifecycle APIs served on the controller listener only
// (BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot, BrokerRegistration,
// BrokerHeartbeat, AllocateProducerIds, AlterPartition): the client listener
// neither advertises them in ApiVersions nor serves them, and closes the
// connection of a well-formed request for one, as Kafka's SocketServer does
// for an API the listener does not expose. (Vote is covered by
// api_versions_test.cc.) Each request would be refused even if it were
// served, so that a listener that wrongly served it changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "broker_fixture.h"
#include "protocol/generated/allocate_producer_ids_request.h"
#include "protocol/generated/alter_partition_request.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/begin_quorum_epoch_request.h"
#include "protocol/generated/broker_heartbeat_request.h"
#include "protocol/generated/broker_registration_request.h"
#include "protocol/generated/end_quorum_epoch_request.h"
#include "protocol/generated/fetch_snapshot_request.h"

namespace samsa::server::test {
namespace {

class controller_only_apis_test : public broker_test {};

struct controller_api {
    const char* name;
    int16_t api_key;
    int16_t version;
    bytes body;
};

template <typename Request>
controller_api api(const char* name, int16_t version, const Request& req) {
    protocol::writer w;
    req.encode(w, version);
    return {name, Request::api_key, version, std::move(w.buffer())};
}

std::vector<controller_api> controller_apis(const std::string& cluster_id) {
    const std::string other_cluster = "not-" + cluster_id;
    std::vector<controller_api> out;
    {
        protocol::begin_quorum_epoch_request r;
        r.cluster_id = other_cluster;
        auto& t = r.topics.emplace_back();
        t.topic_name = "__cluster_metadata";
        auto& p = t.partitions.emplace_back();
        p.leader_id = node_id{2};
        p.leader_epoch = 0;
        out.push_back(api("BeginQuorumEpoch", 1, r));
    }
    {
        protocol::end_quorum_epoch_request r;
        r.cluster_id = other_cluster;
        auto& t = r.topics.emplace_back();
        t.topic_name = "__cluster_metadata";
        auto& p = t.partitions.emplace_back();
        p.leader_id = node_id{2};
        p.leader_epoch = 0;
        out.push_back(api("EndQuorumEpoch", 1, r));
    }
    {
        protocol::fetch_snapshot_request r;
        r.cluster_id = other_cluster;
        auto& t = r.topics.emplace_back();
        t.name = "__cluster_metadata";
        auto& p = t.partitions.emplace_back();
        p.current_leader_epoch = 0;
        out.push_back(api("FetchSnapshot", 1, r));
    }
    {
        protocol::broker_registration_request r;
        r.broker_id = node_id{7401};
        r.cluster_id = other_cluster;
        r.incarnation_id = uuid::random();
        out.push_back(api("BrokerRegistration", 4, r));
    }
    {
        protocol::broker_heartbeat_request r;
        r.broker_id = node_id{7402};
        r.broker_epoch = 0;
        out.push_back(api("BrokerHeartbeat", 1, r));
    }
    {
        protocol::allocate_producer_ids_request r;
        r.broker_id = node_id{7403};
        r.broker_epoch = 0;
        out.push_back(api("AllocateProducerIds", 0, r));
    }
    {
        protocol::alter_partition_request r;
        r.broker_id = node_id{7404};
        r.broker_epoch = 0;
        auto& t = r.topics.emplace_back();
        t.topic_id = uuid::random();
        t.partitions.emplace_back().partition_index = 0;
        out.push_back(api("AlterPartition", 3, r));
    }
    return out;
}

TEST_F(controller_only_apis_test, client_listener_does_not_advertise_them) {
    protocol::api_versions_request req;
    req.client_software_name = "samsa-unit";
    req.client_software_version = "1.0";
    auto resp = broker().call<protocol::api_versions_response>(req, 3);
    ASSERT_ERROR(resp.error_code, error_code::none);
    for (const auto& a : controller_apis(broker().cluster_id())) {
        bool listed = std::any_of(resp.api_keys.begin(), resp.api_keys.end(),
                                  [&](const auto& k) { return k.api_key == a.api_key; });
        EXPECT_FALSE(listed) << a.name;
    }
}

TEST_F(controller_only_apis_test, controller_listener_advertises_them) {
    protocol::api_versions_request req;
    req.client_software_name = "samsa-unit";
    req.client_software_version = "1.0";
    auto resp = broker().call<protocol::api_versions_response>(req, 3, listener_kind::controller);
    ASSERT_ERROR(resp.error_code, error_code::none);
    for (const auto& a : controller_apis(broker().cluster_id())) {
        auto it = std::find_if(resp.api_keys.begin(), resp.api_keys.end(),
                               [&](const auto& k) { return k.api_key == a.api_key; });
        ASSERT_NE(it, resp.api_keys.end()) << a.name;
        EXPECT_LE(it->min_version, a.version) << a.name;
        EXPECT_GE(it->max_version, a.version) << a.name;
    }
}

// The same frames are well formed: the controller listener answers each (with
// an error: none of them is accepted, bar AllocateProducerIds, which only
// hands out a block).
TEST_F(controller_only_apis_test, controller_listener_answers_them) {
    for (const auto& a : controller_apis(broker().cluster_id())) {
        auto answer = broker().call_raw(broker_fixture::frame(a.api_key, a.version, a.body),
                                        listener_kind::controller);
        EXPECT_FALSE(answer.closed) << a.name << " was not answered on the controller listener";
    }
}

TEST_F(controller_only_apis_test, client_listener_closes_the_connection) {
    for (const auto& a : controller_apis(broker().cluster_id())) {
        auto answer = broker().call_raw(broker_fixture::frame(a.api_key, a.version, a.body));
        EXPECT_TRUE(answer.closed) << a.name << " was answered on the client listener";
    }
    // The listener itself is unharmed.
    auto md = broker().metadata({});
    EXPECT_EQ(md.controller_id.value(), broker().node_id());
}

}  // namespace
}  // namespace samsa::server::test
