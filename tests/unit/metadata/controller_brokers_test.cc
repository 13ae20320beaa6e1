// Heartbeats and sessions on the controller (controller_brokers.cc): a
// heartbeat that fences or unfences its broker, and a session that expires,
// each commit a new image; a second incarnation of a live broker is refused. The registration they
// read belongs to the image that commit replaces, which nothing else holds here: the ASan build
// (SAMSA_SANITIZE) caught these paths reading it after it was freed.
#include <gtest/gtest.h>

#include <thread>

#include "controller_fixture.h"

namespace samsa::metadata {
namespace {

using testing::controller_fixture;

class controller_brokers : public controller_fixture {
  protected:
    void SetUp() override {
        controller_fixture::SetUp();
        register_self();
    }

    // Broker 1's registration, copied: the test keeps no image alive.
    broker_registration self_now() { return image()->brokers.at(node_id{1}); }

    protocol::broker_heartbeat_response heartbeat(int64_t epoch, bool want_fence) {
        protocol::broker_heartbeat_request req;
        req.broker_id = node_id{1};
        req.broker_epoch = epoch;
        req.current_metadata_offset = epoch;
        req.want_fence = want_fence;
        return ctl().do_broker_heartbeat(req);
    }
};

TEST_F(controller_brokers, heartbeats_fence_and_unfence_their_broker) {
    const int64_t epoch = self_now().epoch;
    ASSERT_FALSE(self_now().fenced);

    auto fenced = heartbeat(epoch, true);
    EXPECT_EQ(fenced.error_code, 0);
    EXPECT_TRUE(fenced.is_fenced);
    EXPECT_TRUE(self_now().fenced);
    EXPECT_EQ(self_now().epoch, epoch);

    auto unfenced = heartbeat(epoch, false);
    EXPECT_EQ(unfenced.error_code, 0);
    EXPECT_FALSE(unfenced.is_fenced);
    EXPECT_TRUE(unfenced.is_caught_up);
    EXPECT_FALSE(self_now().fenced);

    EXPECT_EQ(heartbeat(epoch + 1, false).error_code, to_wire(error_code::stale_broker_epoch));
}

TEST_F(controller_brokers, an_expired_session_fences_its_broker) {
    cfg.broker_session_timeout_ms = 1;
    const int64_t epoch = self_now().epoch;
    ASSERT_EQ(heartbeat(epoch, false).error_code, 0);  // the session starts
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ctl().check_broker_sessions();
    EXPECT_TRUE(self_now().fenced);
    EXPECT_EQ(self_now().epoch, epoch);
}

// Kafka's ClusterControlManager: while a broker's session is live, another
// incarnation with its node id is DUPLICATE_BROKER_REGISTRATION; once the
// session ended (fenced), or if this controller never heard from it since it
// became active, the new incarnation registers with a new epoch.
TEST_F(controller_brokers, another_incarnation_waits_for_the_live_ones_session) {
    auto register_incarnation = [&](const uuid& incarnation) {
        protocol::broker_registration_request req;
        req.broker_id = node_id{2};
        req.cluster_id = "test-cluster";
        req.incarnation_id = incarnation;
        auto& l = req.listeners.emplace_back();
        l.name = "PLAINTEXT";
        l.host = "localhost";
        l.port = 9093;
        return ctl().do_broker_registration(req);
    };
    auto heartbeat2 = [&](int64_t epoch) {
        protocol::broker_heartbeat_request req;
        req.broker_id = node_id{2};
        req.broker_epoch = epoch;
        req.current_metadata_offset = image()->offset;
        return ctl().do_broker_heartbeat(req);
    };
    const uuid first = uuid::random();
    auto a = register_incarnation(first);
    ASSERT_EQ(a.error_code, 0);
    ASSERT_EQ(heartbeat2(a.broker_epoch).error_code, 0);
    ASSERT_FALSE(image()->brokers.at(node_id{2}).fenced);

    auto b = register_incarnation(uuid::random());
    EXPECT_EQ(b.error_code, to_wire(error_code::duplicate_broker_registration));
    EXPECT_EQ(image()->brokers.at(node_id{2}).incarnation_id, first);
    // The same incarnation retrying is not a duplicate.
    EXPECT_EQ(register_incarnation(first).broker_epoch, a.broker_epoch);

    // A controller that became active without hearing from broker 2 lets a
    // new incarnation in at once.
    ctl().set_active(false, nullptr);
    ctl().set_active(true, nullptr);
    const uuid second = uuid::random();
    auto c = register_incarnation(second);
    EXPECT_EQ(c.error_code, 0);
    EXPECT_GT(c.broker_epoch, a.broker_epoch);
    ASSERT_EQ(heartbeat2(c.broker_epoch).error_code, 0);

    ASSERT_EQ(register_incarnation(uuid::random()).error_code,
              to_wire(error_code::duplicate_broker_registration));
    // Fenced (its session ended, or it asked to be): the next one registers.
    protocol::broker_heartbeat_request fence;
    fence.broker_id = node_id{2};
    fence.broker_epoch = c.broker_epoch;
    fence.current_metadata_offset = image()->offset;
    fence.want_fence = true;
    ASSERT_EQ(ctl().do_broker_heartbeat(fence).error_code, 0);
    ASSERT_TRUE(image()->brokers.at(node_id{2}).fenced);
    EXPECT_EQ(register_incarnation(uuid::random()).error_code, 0);
}

// The active controller's timers (sessions, leader rebalance) wait on its
// io_context; destroying the controller must not outlive one by the other
// (ASan caught a timer destroyed after its io_context at broker shutdown).
TEST_F(controller_brokers, a_controller_with_armed_timers_is_destroyed) {
    cfg.auto_leader_rebalance_enable = true;
    ctl().set_active(true, nullptr);
    open();  // destroys the controller, reopens the log
    EXPECT_FALSE(image()->brokers.at(node_id{1}).fenced);
}

}  // namespace
}  // namespace samsa::metadata
