// ApiVersions (key 18) against the in-process broker: the version ranges each
// listener advertises, UNSUPPORTED_VERSION answered in v0 for a version the
// broker does not know, INVALID_REQUEST for bad client software fields
// (KIP-511), and how a listener treats requests for APIs it does not serve.
#include <gtest/gtest.h>

#include <algorithm>

#include "broker_fixture.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/response_header.h"
#include "protocol/generated/vote_request.h"

namespace samsa::server::test {
namespace {

using protocol::api_versions_request;
using protocol::api_versions_response;

class api_versions_test : public broker_test {};

const api_versions_response::api_version* find_key(const api_versions_response& r, int16_t key) {
    auto it = std::find_if(r.api_keys.begin(), r.api_keys.end(),
                           [key](const auto& k) { return k.api_key == key; });
    return it == r.api_keys.end() ? nullptr : &*it;
}

api_versions_request software(std::string name, std::string version) {
    api_versions_request req;
    req.client_software_name = std::move(name);
    req.client_software_version = std::move(version);
    return req;
}

// An ApiVersions request of `version` with an empty body, answered in v0.
api_versions_response unsupported_answer(broker_fixture& b, int16_t version,
                                         listener_kind l = listener_kind::client) {
    raw_answer a = b.call_raw(broker_fixture::frame(18, version, {}, 42), l);
    api_versions_response resp;
    EXPECT_FALSE(a.closed) << "Kafka answers an unknown ApiVersions version";
    if (a.closed) {
        return resp;
    }
    protocol::reader r(a.frame);
    protocol::response_header h;
    h.decode(r, 0);
    EXPECT_EQ(h.correlation_id, 42);
    resp.decode(r, 0);
    EXPECT_TRUE(r.ok());
    return resp;
}

TEST_F(api_versions_test, client_listener_lists_broker_apis) {
    auto resp = broker().call<api_versions_response>(software("samsa-unit", "1.0"), 3);
    EXPECT_ERROR(resp.error_code, error_code::none);
    const auto* av = find_key(resp, 18);
    ASSERT_NE(av, nullptr);
    EXPECT_EQ(av->min_version, 0);
    EXPECT_EQ(av->max_version, api_versions_request::max_version);
    EXPECT_NE(find_key(resp, 0), nullptr) << "Produce";
    EXPECT_NE(find_key(resp, 1), nullptr) << "Fetch";
    EXPECT_NE(find_key(resp, 3), nullptr) << "Metadata";
    // KRaft and broker-lifecycle APIs live on the controller listener only.
    EXPECT_EQ(find_key(resp, 52), nullptr) << "Vote";
    EXPECT_EQ(find_key(resp, 62), nullptr) << "BrokerRegistration";
    EXPECT_EQ(find_key(resp, 63), nullptr) << "BrokerHeartbeat";
}

TEST_F(api_versions_test, controller_listener_lists_controller_apis) {
    auto resp = broker().call<api_versions_response>(software("samsa-unit", "1.0"), 3,
                                                     listener_kind::controller);
    EXPECT_ERROR(resp.error_code, error_code::none);
    EXPECT_NE(find_key(resp, 18), nullptr) << "ApiVersions";
    EXPECT_NE(find_key(resp, 52), nullptr) << "Vote";
    EXPECT_NE(find_key(resp, 62), nullptr) << "BrokerRegistration";
    EXPECT_EQ(find_key(resp, 0), nullptr) << "Produce";
    // Fetch is served on both: the quorum replicates the metadata log with it.
    EXPECT_NE(find_key(resp, 1), nullptr) << "Fetch";
    EXPECT_EQ(find_key(resp, 11), nullptr) << "JoinGroup";
}

TEST_F(api_versions_test, every_version_up_to_max_answers) {
    for (int16_t v = 0; v <= api_versions_request::max_version; ++v) {
        auto resp = broker().call<api_versions_response>(software("samsa-unit", "1.0"), v);
        EXPECT_ERROR(resp.error_code, error_code::none) << "v" << v;
        EXPECT_FALSE(resp.api_keys.empty()) << "v" << v;
    }
}

TEST_F(api_versions_test, unknown_version_is_unsupported_version_in_v0) {
    auto resp = unsupported_answer(broker(), 127);
    EXPECT_ERROR(resp.error_code, error_code::unsupported_version);
    // The client retries with a version from the ApiVersions entry.
    const auto* av = find_key(resp, 18);
    ASSERT_NE(av, nullptr);
    EXPECT_EQ(av->min_version, 0);
    EXPECT_EQ(av->max_version, api_versions_request::max_version);
}

// Kafka's ApiVersionsRequest.getErrorResponse lists the ApiVersions entry
// alone, on either listener.
TEST_F(api_versions_test, unsupported_version_lists_only_api_versions) {
    auto resp = unsupported_answer(broker(), api_versions_request::max_version + 1);
    EXPECT_ERROR(resp.error_code, error_code::unsupported_version);
    ASSERT_EQ(resp.api_keys.size(), 1u);
    EXPECT_EQ(resp.api_keys[0].api_key, 18);
}

TEST_F(api_versions_test, unsupported_version_on_controller_listener_lists_only_api_versions) {
    auto resp = unsupported_answer(broker(), 127, listener_kind::controller);
    EXPECT_ERROR(resp.error_code, error_code::unsupported_version);
    ASSERT_EQ(resp.api_keys.size(), 1u);
    EXPECT_EQ(resp.api_keys[0].api_key, 18);
    EXPECT_EQ(resp.api_keys[0].min_version, 0);
    EXPECT_EQ(resp.api_keys[0].max_version, api_versions_request::max_version);
}

TEST_F(api_versions_test, invalid_client_software_name_is_invalid_request) {
    auto resp = broker().call<api_versions_response>(software("-bad name-", "1.0"), 3);
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
}

TEST_F(api_versions_test, empty_client_software_version_is_invalid_request) {
    auto resp = broker().call<api_versions_response>(software("samsa-unit", ""), 3);
    EXPECT_ERROR(resp.error_code, error_code::invalid_request);
}

TEST_F(api_versions_test, software_fields_are_not_checked_before_v3) {
    auto resp = broker().call<api_versions_response>(software("-bad name-", ""), 2);
    EXPECT_ERROR(resp.error_code, error_code::none);
}

// Kafka closes the connection on a request for an API the listener does not
// serve (InvalidRequestException in the SocketServer).
TEST_F(api_versions_test, controller_api_on_client_listener_closes_connection) {
    protocol::vote_request vote;
    protocol::writer w;
    vote.encode(w, 0);
    auto a = broker().call_raw(broker_fixture::frame(52, 0, w.buffer()));
    EXPECT_TRUE(a.closed);
}

TEST_F(api_versions_test, client_api_on_controller_listener_closes_connection) {
    protocol::metadata_request md;
    protocol::writer w;
    md.encode(w, 12);
    auto a = broker().call_raw(broker_fixture::frame(3, 12, w.buffer()), listener_kind::controller);
    EXPECT_TRUE(a.closed);
}

TEST_F(api_versions_test, unknown_api_key_closes_connection) {
    auto a = broker().call_raw(broker_fixture::frame(9999, 0, {}));
    EXPECT_TRUE(a.closed);
}

TEST_F(api_versions_test, unsupported_version_of_another_api_closes_connection) {
    protocol::metadata_request md;
    protocol::writer w;
    md.encode(w, 12);
    auto a = broker().call_raw(broker_fixture::frame(3, 99, w.buffer()));
    EXPECT_TRUE(a.closed);
}

TEST_F(api_versions_test, negative_frame_size_closes_connection) {
    bytes wire = {0xff, 0xff, 0xff, 0xf0, 0, 18, 0, 0};
    EXPECT_TRUE(broker().call_raw(wire).closed);
}

TEST_F(api_versions_test, frame_above_socket_request_max_bytes_closes_connection) {
    // 1 GiB announced, far above socket.request.max.bytes (100 MiB).
    bytes wire = {0x40, 0, 0, 0, 0, 18, 0, 0};
    EXPECT_TRUE(broker().call_raw(wire).closed);
}

TEST_F(api_versions_test, truncated_header_closes_connection) {
    bytes wire = {0, 0, 0, 3, 0, 18, 0};
    EXPECT_TRUE(broker().call_raw(wire).closed);
}

}  // namespace
}  // namespace samsa::server::test
