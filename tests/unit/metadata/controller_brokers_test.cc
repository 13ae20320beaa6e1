// Heartbeats and sessions on the controller (controller_brokers.cc): a
// heartbeat that fences or unfences its broker, and a session that expires,
// each commit a new image. The registration they read belongs to the image
// that commit replaces, which nothing else holds here: the ASan build
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
    broker_registration self_now() { return image()->brokers.at(1); }

    protocol::broker_heartbeat_response heartbeat(int64_t epoch, bool want_fence) {
        protocol::broker_heartbeat_request req;
        req.broker_id = 1;
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

// The active controller's timers (sessions, leader rebalance) wait on its
// io_context; destroying the controller must not outlive one by the other
// (ASan caught a timer destroyed after its io_context at broker shutdown).
TEST_F(controller_brokers, a_controller_with_armed_timers_is_destroyed) {
    cfg.auto_leader_rebalance_enable = true;
    ctl().set_active(true, nullptr);
    open();  // destroys the controller, reopens the log
    EXPECT_FALSE(image()->brokers.at(1).fenced);
}

}  // namespace
}  // namespace samsa::metadata
