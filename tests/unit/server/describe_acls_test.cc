// DescribeAcls (key 29) against the in-process broker, which runs without an
// authorizer: as Kafka's AclApis, the answer is SECURITY_DISABLED "No
// Authorizer is configured on the broker" with no resources, in the
// non-flexible (v1) and flexible (v2+) versions, whatever the filter.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/describe_acls_request.h"
#include "protocol/generated/describe_acls_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_acls_request;
using protocol::describe_acls_response;

// Any ACL of any resource.
describe_acls_request match_any() {
    describe_acls_request req;
    req.resource_type_filter = 1;  // ANY
    req.resource_name_filter = std::nullopt;
    req.pattern_type_filter = 1;  // ANY
    req.principal_filter = std::nullopt;
    req.host_filter = std::nullopt;
    req.operation = 1;        // ANY
    req.permission_type = 1;  // ANY
    return req;
}

class describe_acls_test : public broker_test {};

TEST_F(describe_acls_test, any_filter_is_security_disabled_without_an_authorizer) {
    for (int16_t version : {1, 2, 3}) {
        SCOPED_TRACE(version);
        auto resp = broker().call<describe_acls_response>(match_any(), version);
        EXPECT_ERROR(resp.error_code, error_code::security_disabled);
        EXPECT_EQ(resp.error_message.value_or(""), "No Authorizer is configured on the broker");
        EXPECT_TRUE(resp.resources.empty());
    }
}

TEST_F(describe_acls_test, a_narrow_filter_is_security_disabled_too) {
    auto req = match_any();
    req.resource_type_filter = 2;  // TOPIC
    req.resource_name_filter = unique_name("acl-topic");
    req.pattern_type_filter = 3;  // LITERAL
    req.principal_filter = "User:alice";
    req.host_filter = "*";
    req.operation = 3;        // READ
    req.permission_type = 3;  // ALLOW
    auto resp = broker().call<describe_acls_response>(req, 3);
    EXPECT_ERROR(resp.error_code, error_code::security_disabled);
    EXPECT_EQ(resp.error_message.value_or(""), "No Authorizer is configured on the broker");
    EXPECT_TRUE(resp.resources.empty());
}

}  // namespace
}  // namespace samsa::server::test
