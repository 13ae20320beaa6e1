#include "cluster/leadership_lease.h"

#include <gtest/gtest.h>

namespace samsa::cluster {
namespace {

using std::chrono::milliseconds;
using clock = leadership_lease::clock;

TEST(leadership_lease_test, is_held_until_enforced) {
    leadership_lease lease;
    EXPECT_FALSE(lease.enforced());
    EXPECT_TRUE(lease.held());
    lease.revoke();
    EXPECT_TRUE(lease.held());
    lease.enforce();
    EXPECT_FALSE(lease.held());
}

TEST(leadership_lease_test, lasts_a_session_timeout_from_when_the_heartbeat_was_sent) {
    leadership_lease lease;
    lease.enforce();
    const auto sent = clock::now();
    lease.extend(sent, milliseconds(9000));
    EXPECT_TRUE(lease.held(sent));
    EXPECT_TRUE(lease.held(sent + milliseconds(8999)));
    EXPECT_FALSE(lease.held(sent + milliseconds(9000)));
}

TEST(leadership_lease_test, an_answer_to_an_older_heartbeat_does_not_shorten_it) {
    leadership_lease lease;
    lease.enforce();
    const auto sent = clock::now();
    lease.extend(sent, milliseconds(9000));
    lease.extend(sent - milliseconds(5000), milliseconds(9000));
    EXPECT_TRUE(lease.held(sent + milliseconds(8000)));
}

TEST(leadership_lease_test, a_fenced_answer_revokes_it_until_the_next_unfenced_one) {
    leadership_lease lease;
    lease.enforce();
    const auto sent = clock::now();
    lease.extend(sent, milliseconds(9000));
    lease.revoke();
    EXPECT_FALSE(lease.held(sent));
    lease.extend(sent + milliseconds(100), milliseconds(9000));
    EXPECT_TRUE(lease.held(sent + milliseconds(200)));
}

}  // namespace
}  // namespace samsa::cluster
