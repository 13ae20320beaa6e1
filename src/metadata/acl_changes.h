#pragma once
// ACLs as metadata (KIP-801, Kafka's AclControlManager): CreateAcls and
// DeleteAcls run on the controller, where each new ACL becomes an
// AccessControlEntryRecord with a fresh id and each deleted one a
// RemoveAccessControlEntryRecord; every broker's image replays them into its
// authorizer's cache.
//
//   CreateAcls   each creation alone: an invalid one answers INVALID_REQUEST
//                with Kafka's message; one that exists already succeeds
//                without a record
//   DeleteAcls   each filter alone: an UNKNOWN field answers INVALID_REQUEST;
//                otherwise every ACL it matches is removed and listed
#include "metadata/controller_plan.h"
#include "protocol/generated/access_control_entry_record.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"
#include "security/acl/acl.h"

namespace samsa::metadata {

security::acl::acl_binding acl_of(const protocol::access_control_entry_record& r);
protocol::access_control_entry_record record_of(const uuid& id,
                                                const security::acl::acl_binding& b);
security::acl::acl_binding acl_of(const protocol::create_acls_request::acl_creation& c);
// A DescribeAcls request or a DeleteAcls filter: their fields are named alike.
template <typename Filter>
security::acl::acl_binding_filter filter_of(const Filter& f) {
    namespace acl = security::acl;
    return {acl::resource_type(f.resource_type_filter),
            f.resource_name_filter,
            acl::pattern_type(f.pattern_type_filter),
            f.principal_filter,
            f.host_filter,
            acl::operation(f.operation),
            acl::permission(f.permission_type)};
}

controller_plan<protocol::create_acls_response> plan_create_acls(
    const controller_state& state, const protocol::create_acls_request& request);
controller_plan<protocol::delete_acls_response> plan_delete_acls(
    const controller_state& state, const protocol::delete_acls_request& request);

}  // namespace samsa::metadata
