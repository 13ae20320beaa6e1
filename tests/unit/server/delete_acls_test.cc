// DeleteAcls (key 31) against the in-process broker, which runs without an
// authorizer: as Kafka's AclApis, every filter answers SECURITY_DISABLED
// "No Authorizer is configured." with no matching ACLs, in the non-flexible
// (v1) and flexible (v2+) versions alike.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"

namespace samsa::server::test {
namespace {

using protocol::delete_acls_request;
using protocol::delete_acls_response;

// Every ACL of resources named `name` of any type and pattern.
delete_acls_request::delete_acls_filter named(const std::optional<std::string>& name) {
    delete_acls_request::delete_acls_filter f;
    f.resource_type_filter = 1;  // ANY
    f.resource_name_filter = name;
    f.pattern_type_filter = 1;  // ANY
    f.principal_filter = std::nullopt;
    f.host_filter = std::nullopt;
    f.operation = 1;        // ANY
    f.permission_type = 1;  // ANY
    return f;
}

class delete_acls_test : public broker_test {};

TEST_F(delete_acls_test, every_filter_is_security_disabled_without_an_authorizer) {
    for (int16_t version : {1, 2, 3}) {
        SCOPED_TRACE(version);
        delete_acls_request req;
        req.filters.push_back(named(unique_name("acl-topic")));
        req.filters.push_back(named(std::nullopt));
        auto resp = broker().call<delete_acls_response>(req, version);
        ASSERT_EQ(resp.filter_results.size(), 2u);
        for (const auto& r : resp.filter_results) {
            EXPECT_ERROR(r.error_code, error_code::security_disabled);
            EXPECT_EQ(r.error_message.value_or(""), "No Authorizer is configured.");
            EXPECT_TRUE(r.matching_acls.empty());
        }
    }
}

TEST_F(delete_acls_test, no_filters_is_an_empty_answer) {
    auto resp = broker().call<delete_acls_response>(delete_acls_request{}, 3);
    EXPECT_TRUE(resp.filter_results.empty());
}

}  // namespace
}  // namespace samsa::server::test
