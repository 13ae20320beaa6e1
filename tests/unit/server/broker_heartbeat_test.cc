// BrokerHeartbeat (key 63, KIP-631) on the controller listener, answered as
// Kafka's QuorumController.processBrokerHeartbeat answers it:
// STALE_BROKER_EPOCH for a broker id that never registered ("a heartbeat
// from broker N before registration") and for a registered broker's wrong
// epoch (ClusterControlManager.checkBrokerEpoch). Only refused heartbeats
// name the fixture's own node id, and none of them asks to shut down or to
// be fenced; the fixture's registration is unchanged after each.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "metadata/metadata_image.h"
#include "protocol/generated/broker_heartbeat_request.h"
#include "protocol/generated/broker_heartbeat_response.h"
#include "server/broker_context.h"
#include "server/server.h"

namespace samsa::server::test {
namespace {

using protocol::broker_heartbeat_request;
using protocol::broker_heartbeat_response;

class broker_heartbeat_test : public broker_test {
  protected:
    std::optional<metadata::broker_registration> registration(int32_t id) {
        auto image = broker().srv().context().metadata.read();
        auto it = image->brokers.find(node_id{id});
        if (it == image->brokers.end()) {
            return std::nullopt;
        }
        return it->second;
    }

    static broker_heartbeat_request heartbeat(int32_t id, int64_t epoch) {
        broker_heartbeat_request req;
        req.broker_id = node_id{id};
        req.broker_epoch = epoch;
        req.current_metadata_offset = 0;
        req.want_fence = false;
        req.want_shut_down = false;
        return req;
    }

    broker_heartbeat_response send(const broker_heartbeat_request& req,
                                   int16_t version = broker_heartbeat_request::max_version) {
        return broker().call<broker_heartbeat_response>(req, version, listener_kind::controller);
    }

    // A heartbeat of the fixture's node in a wrong epoch: refused, and the
    // registration is as it was.
    void expect_refused_for_self(int64_t epoch) {
        auto before = registration(broker().node_id());
        ASSERT_TRUE(before.has_value());
        ASSERT_NE(epoch, before->epoch);
        for (int16_t v = 0; v <= broker_heartbeat_request::max_version; ++v) {
            auto resp = send(heartbeat(broker().node_id(), epoch), v);
            EXPECT_ERROR(resp.error_code, error_code::stale_broker_epoch) << "v" << v;
            EXPECT_FALSE(resp.should_shut_down) << "v" << v;
        }
        auto after = registration(broker().node_id());
        ASSERT_TRUE(after.has_value());
        EXPECT_EQ(after->epoch, before->epoch);
        EXPECT_FALSE(after->fenced);
        EXPECT_FALSE(after->in_controlled_shutdown);
    }
};

TEST_F(broker_heartbeat_test, unregistered_broker_is_stale_broker_epoch) {
    const int32_t id = 7101;
    ASSERT_FALSE(registration(id).has_value());
    for (int16_t v = 0; v <= broker_heartbeat_request::max_version; ++v) {
        auto resp = send(heartbeat(id, 0), v);
        EXPECT_ERROR(resp.error_code, error_code::stale_broker_epoch) << "v" << v;
        EXPECT_FALSE(resp.should_shut_down) << "v" << v;
    }
    EXPECT_FALSE(registration(id).has_value());
}

TEST_F(broker_heartbeat_test, unregistered_broker_asking_to_shut_down_is_stale_broker_epoch) {
    const int32_t id = 7102;
    auto req = heartbeat(id, 0);
    req.want_shut_down = true;
    auto resp = send(req);
    EXPECT_ERROR(resp.error_code, error_code::stale_broker_epoch);
    EXPECT_FALSE(registration(id).has_value());
}

TEST_F(broker_heartbeat_test, older_epoch_of_a_registered_broker_is_stale_broker_epoch) {
    auto self = registration(broker().node_id());
    ASSERT_TRUE(self.has_value());
    ASSERT_GE(self->epoch, 0);
    expect_refused_for_self(self->epoch - 1);
}

TEST_F(broker_heartbeat_test, newer_epoch_of_a_registered_broker_is_stale_broker_epoch) {
    auto self = registration(broker().node_id());
    ASSERT_TRUE(self.has_value());
    expect_refused_for_self(self->epoch + 1000000);
}

TEST_F(broker_heartbeat_test, no_epoch_of_a_registered_broker_is_stale_broker_epoch) {
    expect_refused_for_self(-1);
}

}  // namespace
}  // namespace samsa::server::test
