// DescribeCluster (key 60) against the in-process broker: the cluster id,
// controller and brokers on the client listener and the controllers on the
// controller listener (KIP-919), and MISMATCHED_ENDPOINT_TYPE /
// UNSUPPORTED_ENDPOINT_TYPE for the wrong or an unknown endpoint type.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_cluster_request;
using protocol::describe_cluster_response;

constexpr int8_t k_brokers = 1;
constexpr int8_t k_controllers = 2;

class describe_cluster_test : public broker_test {
  protected:
    describe_cluster_response describe(int8_t endpoint_type, int16_t version = 1,
                                       listener_kind l = listener_kind::client) {
        describe_cluster_request req;
        req.endpoint_type = endpoint_type;
        return broker().call<describe_cluster_response>(req, version, l);
    }
};

TEST_F(describe_cluster_test, brokers_on_client_listener) {
    auto resp = describe(k_brokers);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_EQ(resp.cluster_id, broker().cluster_id());
    EXPECT_EQ(resp.controller_id.value(), broker().node_id());
    EXPECT_EQ(resp.endpoint_type, k_brokers);
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].broker_id.value(), broker().node_id());
    EXPECT_EQ(resp.brokers[0].port, broker().port());
}

TEST_F(describe_cluster_test, v0_lists_brokers) {
    auto resp = describe(k_brokers, 0);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_EQ(resp.brokers.size(), 1u);
}

TEST_F(describe_cluster_test, controllers_on_client_listener_is_mismatched_endpoint_type) {
    EXPECT_ERROR(describe(k_controllers).error_code, error_code::mismatched_endpoint_type);
}

TEST_F(describe_cluster_test, unknown_endpoint_type_is_unsupported_endpoint_type) {
    EXPECT_ERROR(describe(7).error_code, error_code::unsupported_endpoint_type);
}

// KIP-919: the controller listener serves DescribeCluster for controllers
// (Kafka's ControllerApis.handleDescribeCluster): the voters at their
// controller listener address, the active controller and the cluster id.
TEST_F(describe_cluster_test, controllers_on_controller_listener) {
    auto resp = describe(k_controllers, 1, listener_kind::controller);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_EQ(resp.endpoint_type, k_controllers);
    EXPECT_EQ(resp.cluster_id, broker().cluster_id());
    EXPECT_EQ(resp.controller_id.value(), broker().node_id());
    ASSERT_EQ(resp.brokers.size(), 1u);
    EXPECT_EQ(resp.brokers[0].broker_id.value(), broker().node_id());
    EXPECT_EQ(resp.brokers[0].host, "127.0.0.1");
    EXPECT_EQ(resp.brokers[0].port, broker().port(listener_kind::controller));
    EXPECT_EQ(resp.brokers[0].rack, std::nullopt);
    EXPECT_EQ(resp.cluster_authorized_operations, INT32_MIN) << "not asked for";
}

TEST_F(describe_cluster_test, brokers_on_controller_listener_is_mismatched_endpoint_type) {
    auto resp = describe(k_brokers, 1, listener_kind::controller);
    EXPECT_ERROR(resp.error_code, error_code::mismatched_endpoint_type);
    EXPECT_TRUE(resp.brokers.empty());
}

// v0 has no endpoint type: it asks for brokers, which the controller
// listener does not serve, and v0 has no MISMATCHED_ENDPOINT_TYPE.
TEST_F(describe_cluster_test, v0_on_controller_listener_is_invalid_request) {
    EXPECT_ERROR(describe(k_brokers, 0, listener_kind::controller).error_code,
                 error_code::invalid_request);
}

TEST_F(describe_cluster_test, unknown_endpoint_type_on_controller_listener) {
    EXPECT_ERROR(describe(7, 1, listener_kind::controller).error_code,
                 error_code::unsupported_endpoint_type);
}

}  // namespace
}  // namespace samsa::server::test
