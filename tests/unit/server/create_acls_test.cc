// CreateAcls (key 30) against the in-process broker, which runs without an
// authorizer (no authorizer.class.name): as Kafka's AclApis, every creation
// answers SECURITY_DISABLED "No Authorizer is configured.", in the
// non-flexible (v1) and flexible (v2+) versions alike, and nothing is created.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "protocol/generated/describe_acls_request.h"
#include "protocol/generated/describe_acls_response.h"

namespace samsa::server::test {
namespace {

using protocol::create_acls_request;
using protocol::create_acls_response;

// ALLOW User:<principal> READ on the literal topic `topic` from any host.
create_acls_request::acl_creation allow_read(const std::string& topic,
                                             const std::string& principal) {
    create_acls_request::acl_creation c;
    c.resource_type = 2;  // TOPIC
    c.resource_name = topic;
    c.resource_pattern_type = 3;  // LITERAL
    c.principal = "User:" + principal;
    c.host = "*";
    c.operation = 3;        // READ
    c.permission_type = 3;  // ALLOW
    return c;
}

class create_acls_test : public broker_test {};

TEST_F(create_acls_test, every_creation_is_security_disabled_without_an_authorizer) {
    for (int16_t version : {1, 2, 3}) {
        SCOPED_TRACE(version);
        create_acls_request req;
        req.creations.push_back(allow_read(unique_name("acl-topic"), "alice"));
        req.creations.push_back(allow_read(unique_name("acl-topic"), "bob"));
        auto resp = broker().call<create_acls_response>(req, version);
        ASSERT_EQ(resp.results.size(), 2u);
        for (const auto& r : resp.results) {
            EXPECT_ERROR(r.error_code, error_code::security_disabled);
            EXPECT_EQ(r.error_message.value_or(""), "No Authorizer is configured.");
        }
    }
}

TEST_F(create_acls_test, nothing_is_created) {
    const auto topic = unique_name("acl-topic");
    create_acls_request req;
    req.creations.push_back(allow_read(topic, "carol"));
    auto resp = broker().call<create_acls_response>(req, 3);
    ASSERT_EQ(resp.results.size(), 1u);
    ASSERT_ERROR(resp.results[0].error_code, error_code::security_disabled);

    // DescribeAcls is refused the same way: there is no ACL store to show.
    protocol::describe_acls_request describe;
    describe.resource_type_filter = 1;  // ANY
    describe.resource_name_filter = std::nullopt;
    describe.pattern_type_filter = 1;  // ANY
    describe.principal_filter = std::nullopt;
    describe.host_filter = std::nullopt;
    describe.operation = 1;        // ANY
    describe.permission_type = 1;  // ANY
    auto described = broker().call<protocol::describe_acls_response>(describe, 3);
    EXPECT_ERROR(described.error_code, error_code::security_disabled);
    EXPECT_TRUE(described.resources.empty());
}

TEST_F(create_acls_test, no_creations_is_an_empty_answer) {
    auto resp = broker().call<create_acls_response>(create_acls_request{}, 3);
    EXPECT_TRUE(resp.results.empty());
}

}  // namespace
}  // namespace samsa::server::test
