// FindCoordinator (key 10) against the in-process broker: group and
// transaction coordinators are this node (their internal topic created on
// first use), in the v0-3 single-key form and the v4+ batched form, and an
// unknown key type is INVALID_REQUEST.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"

namespace samsa::server::test {
namespace {

using protocol::find_coordinator_request;
using protocol::find_coordinator_response;

class find_coordinator_test : public broker_test {
  protected:
    // v4+: retries while the coordinator's topic is still being created.
    find_coordinator_response::coordinator find(int8_t key_type, const std::string& key) {
        find_coordinator_request req;
        req.key_type = key_type;
        req.coordinator_keys = {key};
        find_coordinator_response::coordinator c;
        broker_fixture::wait_until([&] {
            auto resp = broker().call<find_coordinator_response>(req, 4);
            if (resp.coordinators.size() != 1) {
                ADD_FAILURE() << "expected one coordinator";
                return true;
            }
            c = resp.coordinators[0];
            return c.error_code != int16_t(error_code::coordinator_not_available);
        });
        return c;
    }
};

TEST_F(find_coordinator_test, group_coordinator_is_this_node) {
    const auto group = unique_name("fc-group");
    auto c = find(0, group);
    EXPECT_ERROR(c.error_code, error_code::none);
    EXPECT_EQ(c.key, group);
    EXPECT_EQ(c.node_id.value(), broker().node_id());
    EXPECT_EQ(c.port, broker().port());
}

// Key type 1 creates __transaction_state (one partition in this broker's
// config) and names its leader, as Kafka's transaction coordinator does.
TEST_F(find_coordinator_test, transaction_coordinator_is_this_node) {
    const auto id = unique_name("fc-txn");
    auto c = find(1, id);
    EXPECT_ERROR(c.error_code, error_code::none);
    EXPECT_EQ(c.key, id);
    EXPECT_EQ(c.node_id.value(), broker().node_id());
    EXPECT_EQ(c.host, "127.0.0.1");
    EXPECT_EQ(c.port, broker().port());
    auto md = broker().metadata({"__transaction_state"});
    ASSERT_EQ(md.topics.size(), 1u);
    EXPECT_ERROR(md.topics[0].error_code, error_code::none);
    EXPECT_TRUE(md.topics[0].is_internal);
    EXPECT_EQ(md.topics[0].partitions.size(), 1u);
}

TEST_F(find_coordinator_test, transaction_coordinator_single_key_before_v4) {
    find(1, unique_name("fc-txn-warm"));  // __transaction_state exists from here on
    find_coordinator_request req;
    req.key = unique_name("fc-txn-v3");
    req.key_type = 1;
    auto resp = broker().call<find_coordinator_response>(req, 3);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_EQ(resp.node_id.value(), broker().node_id());
    EXPECT_EQ(resp.port, broker().port());
}

TEST_F(find_coordinator_test, single_key_before_v4) {
    find(0, unique_name("fc-warm"));  // __consumer_offsets exists from here on
    find_coordinator_request req;
    req.key = unique_name("fc-v3");
    req.key_type = 0;
    auto resp = broker().call<find_coordinator_response>(req, 3);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_EQ(resp.node_id.value(), broker().node_id());
    EXPECT_EQ(resp.port, broker().port());
}

TEST_F(find_coordinator_test, several_keys_are_answered_each) {
    find(0, unique_name("fc-warm"));
    find_coordinator_request req;
    req.key_type = 0;
    req.coordinator_keys = {unique_name("fc-a"), unique_name("fc-b"), unique_name("fc-c")};
    auto resp = broker().call<find_coordinator_response>(req, 4);
    ASSERT_EQ(resp.coordinators.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(resp.coordinators[i].key, req.coordinator_keys[i]);
        EXPECT_ERROR(resp.coordinators[i].error_code, error_code::none);
    }
}

TEST_F(find_coordinator_test, unknown_key_type_is_invalid_request) {
    find_coordinator_request req;
    req.key_type = 9;
    req.coordinator_keys = {"k"};
    auto resp = broker().call<find_coordinator_response>(req, 4);
    ASSERT_EQ(resp.coordinators.size(), 1u);
    EXPECT_ERROR(resp.coordinators[0].error_code, error_code::invalid_request);
}

TEST_F(find_coordinator_test, unknown_key_type_before_v4_is_invalid_request) {
    find_coordinator_request req;
    req.key_type = 9;
    req.key = "k";
    auto resp = broker().call<find_coordinator_response>(req, 3);
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
}

}  // namespace
}  // namespace samsa::server::test
