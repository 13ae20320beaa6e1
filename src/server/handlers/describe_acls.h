#pragma once
// DescribeAcls (key 29, v1-3): the ACLs a filter matches, from this broker's
// metadata image, grouped by resource pattern. The principal needs DESCRIBE
// on the cluster; without an authorizer the answer is SECURITY_DISABLED, as
// Kafka's AclApis give it.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler describe_acls_handler();

}  // namespace samsa::server::handlers
